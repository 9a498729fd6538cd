//go:build integration

package main

import (
	"os"
	"path/filepath"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"
)

const keepAnnotation = "helm.sh/resource-policy"

// TestIntegration_Chart_CRDsKeep renders the chart with crds.keep at its
// default and false: each rendered CRD is the one in config/crd/bases, with
// helm.sh/resource-policy: keep added by default and without it when false
// (charts/orderhub/README.md, "What it renders").
func TestIntegration_Chart_CRDsKeep(t *testing.T) {
	bases := baseCRDs(t)
	for _, tc := range []struct {
		set  string
		keep bool
	}{{"crds.keep=true", true}, {"crds.keep=false", false}} {
		crds := ofKind(mustTemplate(t, tc.set), "CustomResourceDefinition")
		if len(crds) != len(bases) {
			t.Errorf("%s: %d CRDs rendered, config/crd/bases has %d", tc.set, len(crds), len(bases))
		}
		for _, o := range crds {
			got := o.Typed.(*apiextensionsv1.CustomResourceDefinition).DeepCopy()
			policy, annotated := got.Annotations[keepAnnotation]
			if annotated != tc.keep || (tc.keep && policy != "keep") {
				t.Errorf("%s: CRD %s has %s=%q (set: %v)", tc.set, got.Name, keepAnnotation, policy, annotated)
			}
			delete(got.Annotations, keepAnnotation)
			want, ok := bases[got.Name]
			if !ok {
				t.Errorf("%s: CRD %s is not in config/crd/bases", tc.set, got.Name)
				continue
			}
			if !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("%s: CRD %s differs from config/crd/bases beyond %s", tc.set, got.Name, keepAnnotation)
			}
		}
	}
}

// baseCRDs are the CRDs of config/crd/bases by name.
func baseCRDs(t *testing.T) map[string]*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	files, err := filepath.Glob("../../config/crd/bases/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in config/crd/bases: %v", err)
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
		out[crd.Name] = crd
	}
	return out
}
