package v1alpha1_test

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	v1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// crdDir is config/crd/bases of this repository.
func crdDir(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "config", "crd", "bases")
}

func loadCRDs(t *testing.T) map[string]*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(crdDir(t), "c5c3.io_*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no c5c3.io CRDs in %s (run hack/generate.sh): %v", crdDir(t), err)
	}
	out := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(raw, crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[crd.Spec.Names.Kind] = crd
	}
	return out
}

// collectMessages gathers every x-kubernetes-validations message of a schema.
func collectMessages(s *apiextensionsv1.JSONSchemaProps, into map[string]bool) {
	if s == nil {
		return
	}
	for _, r := range s.XValidations {
		into[r.Message] = true
	}
	for k := range s.Properties {
		p := s.Properties[k]
		collectMessages(&p, into)
	}
	if s.Items != nil {
		collectMessages(s.Items.Schema, into)
	}
}

// TestMessages_MatchCRDs pins every Msg* constant to a CEL message of the
// generated CRDs, and every CEL message to a constant.
func TestMessages_MatchCRDs(t *testing.T) {
	t.Parallel()
	inCRDs := map[string]bool{}
	for _, crd := range loadCRDs(t) {
		for _, v := range crd.Spec.Versions {
			collectMessages(v.Schema.OpenAPIV3Schema, inCRDs)
		}
	}
	constants := map[string]bool{
		v1.MsgKeystoneServiceNoBlock: true, v1.MsgControlPlaneRefNameImmutable: true, v1.MsgServiceTypeIdentity: true,
		v1.MsgServiceTypeImmutable: true, v1.MsgServiceNameImmutable: true, v1.MsgUserNameImmutable: true,
		v1.MsgAccountDomainNameImmutable: true, v1.MsgProjectNameImmutable: true, v1.MsgProjectCreateImmutable: true,
		v1.MsgControlPlaneRefNamespaceImmutable: true, v1.MsgUserRefImmutable: true, v1.MsgProjectRefImmutable: true,
		v1.MsgCredentialGenerationIncrease: true, v1.MsgIntervalZeroOrMinute: true, v1.MsgIntervalMax: true,
		v1.MsgGracePeriodNotNegative: true, v1.MsgGracePeriodShorterThanInterval: true, v1.MsgMetadataNameMax63: true,
		v1.MsgOrderUserNameImmutable: true, v1.MsgOrderDomainNameImmutable: true, v1.MsgDefaultProjectRefImmutable: true,
		v1.MsgPasswordGenerationIncrease: true, v1.MsgOrderProjectNameImmutable: true, v1.MsgRoleImmutable: true,
		v1.MsgExternalRequiredIffExternalMode: true, v1.MsgExternalForbidsManagedFields: true, v1.MsgRotationTargetSelector: true,
		v1.MsgAuthURLNoQueryOrFragment: true, v1.MsgRoleNameNoComma: true,
	}
	for m := range constants {
		if !inCRDs[m] {
			t.Errorf("constant %q is in no CRD rule", m)
		}
	}
	for m := range inCRDs {
		if !constants[m] {
			t.Errorf("CRD rule message %q has no Msg* constant", m)
		}
	}
}

// TestCRDs_EveryFieldDescribed makes sure kubectl explain shows a description
// for every field of every hub kind.
func TestCRDs_EveryFieldDescribed(t *testing.T) {
	t.Parallel()
	var missing []string
	var walk func(path string, s *apiextensionsv1.JSONSchemaProps)
	walk = func(path string, s *apiextensionsv1.JSONSchemaProps) {
		for k := range s.Properties {
			p := s.Properties[k]
			child := path + "." + k
			if strings.TrimSpace(p.Description) == "" && k != "metadata" {
				missing = append(missing, child)
			}
			walk(child, &p)
		}
		if s.Items != nil && s.Items.Schema != nil {
			walk(path+"[]", s.Items.Schema)
		}
	}
	for kind, crd := range loadCRDs(t) {
		for _, v := range crd.Spec.Versions {
			walk(kind, v.Schema.OpenAPIV3Schema)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("fields without a description:\n%s", strings.Join(missing, "\n"))
	}
}

// TestCRDs_PrinterColumns pins the kubectl get columns of the reference pages
// (docs/reference/*.md, "API Group and Version").
func TestCRDs_PrinterColumns(t *testing.T) {
	t.Parallel()
	crds := loadCRDs(t)
	want := map[string][]string{
		"KeystoneService":               {"Ready", "Reason", "ControlPlane", "Type", "Age"},
		"KeystoneApplicationCredential": {"Ready", "Reason", "ControlPlane", "User", "Project", "Generation", "NextRotation", "Age"},
		"ControlPlane":                  {"Ready", "Reason", "Release", "Age"},
		"CredentialRotation":            {"Target", "Ready", "Reason", "Age"},
		"KeystoneUser":                  {"Ready", "Reason", "ControlPlane", "User", "Generation", "Age"},
		"KeystoneProject":               {"Ready", "Reason", "ControlPlane", "Project", "Age"},
		"KeystoneRoleAssignment":        {"Ready", "Reason", "ControlPlane", "User", "Project", "Role", "Age"},
	}
	for kind, cols := range want {
		crd, ok := crds[kind]
		if !ok {
			t.Fatalf("no CRD for %s", kind)
		}
		var got []string
		for _, c := range crd.Spec.Versions[0].AdditionalPrinterColumns {
			got = append(got, c.Name)
		}
		if !reflect.DeepEqual(got, cols) {
			t.Errorf("%s columns = %v, want %v", kind, got, cols)
		}
	}
}
