//go:build integration

package main

// Tests of the Helm chart charts/orderhub: helm lint, and `helm template`
// with the defaults and with each switch flipped. Every rendered object must
// parse strictly into its Kubernetes type, and every controller's arguments
// must parse with the flags this binary registers. The helm binary is
// $ORDERHUB_HELM (hack/tools.sh helm; make exports it).

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

const chartDir = "../../charts/orderhub"

func helmBin(t *testing.T) string {
	t.Helper()
	h := os.Getenv("ORDERHUB_HELM")
	if h == "" {
		t.Fatal("ORDERHUB_HELM is not set: run through make (hack/tools.sh env), after hack/tools.sh helm")
	}
	return h
}

// rendered is one object of a helm template run: its kind, name and the
// strictly decoded typed object (nil for kinds outside Kubernetes itself).
type rendered struct {
	Kind, Name, Namespace string
	Raw                   map[string]any
	Typed                 any
}

// typedKinds are the kinds decoded strictly; an unknown field in one fails.
var typedKinds = map[string]func() any{
	"Deployment":                     func() any { return &appsv1.Deployment{} },
	"ServiceAccount":                 func() any { return &corev1.ServiceAccount{} },
	"Service":                        func() any { return &corev1.Service{} },
	"Secret":                         func() any { return &corev1.Secret{} },
	"ClusterRole":                    func() any { return &rbacv1.ClusterRole{} },
	"ClusterRoleBinding":             func() any { return &rbacv1.ClusterRoleBinding{} },
	"Role":                           func() any { return &rbacv1.Role{} },
	"RoleBinding":                    func() any { return &rbacv1.RoleBinding{} },
	"CustomResourceDefinition":       func() any { return &apiextensionsv1.CustomResourceDefinition{} },
	"MutatingWebhookConfiguration":   func() any { return &admissionregistrationv1.MutatingWebhookConfiguration{} },
	"ValidatingWebhookConfiguration": func() any { return &admissionregistrationv1.ValidatingWebhookConfiguration{} },
	"PodDisruptionBudget":            func() any { return &policyv1.PodDisruptionBudget{} },
}

// helmTemplate renders the chart with the given --set values.
func helmTemplate(t *testing.T, sets ...string) ([]rendered, error) {
	t.Helper()
	args := []string{"template", "rel", chartDir, "--namespace", "orderhub-system"}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(helmBin(t), args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("helm %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return parseObjects(t, stdout.Bytes()), nil
}

func mustTemplate(t *testing.T, sets ...string) []rendered {
	t.Helper()
	objs, err := helmTemplate(t, sets...)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func parseObjects(t *testing.T, out []byte) []rendered {
	t.Helper()
	var objs []rendered
	for _, doc := range strings.Split("\n"+string(out), "\n---") {
		var raw map[string]any
		if err := yaml.Unmarshal([]byte(doc), &raw); err != nil {
			t.Fatalf("rendered document does not parse: %v\n%s", err, doc)
		}
		if len(raw) == 0 {
			continue
		}
		kind, _ := raw["kind"].(string)
		md, _ := raw["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		ns, _ := md["namespace"].(string)
		if kind == "" || name == "" {
			t.Fatalf("rendered object without kind or name:\n%s", doc)
		}
		o := rendered{Kind: kind, Name: name, Namespace: ns, Raw: raw}
		if mk, ok := typedKinds[kind]; ok {
			o.Typed = mk()
			if err := yaml.UnmarshalStrict([]byte(doc), o.Typed); err != nil {
				t.Fatalf("%s %s does not parse as its type: %v", kind, name, err)
			}
		}
		objs = append(objs, o)
	}
	return objs
}

func ofKind(objs []rendered, kind string) []rendered {
	var r []rendered
	for _, o := range objs {
		if o.Kind == kind {
			r = append(r, o)
		}
	}
	return r
}

func find(objs []rendered, kind, name string) *rendered {
	for i := range objs {
		if objs[i].Kind == kind && objs[i].Name == name {
			return &objs[i]
		}
	}
	return nil
}

func deployment(t *testing.T, objs []rendered, controller string) *appsv1.Deployment {
	t.Helper()
	o := find(objs, "Deployment", "rel-orderhub-"+controller)
	if o == nil {
		t.Fatalf("no Deployment rel-orderhub-%s", controller)
	}
	return o.Typed.(*appsv1.Deployment)
}

func containerArgs(d *appsv1.Deployment) []string { return d.Spec.Template.Spec.Containers[0].Args }

func envValue(d *appsv1.Deployment, name string) (string, bool) {
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

// checkArgsParse parses a controller's rendered arguments with the flags
// the subcommand registers: "-h" after them makes the run stop after
// parsing, with flag.ErrHelp when every argument was accepted.
func checkArgsParse(t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	args := containerArgs(d)
	sc, ok := subcommands[args[0]]
	if !ok {
		t.Fatalf("%s runs unknown subcommand %q", d.Name, args[0])
	}
	run := sc.run
	// runHub and runIdentity install the process's signal handler, which may
	// happen once: parse through their Context variants.
	switch args[0] {
	case "hub":
		run = func(a []string) error { return runHubContext(t.Context(), a) }
	case "identity":
		run = func(a []string) error { return runIdentityContext(t.Context(), a) }
	}
	// The flag sets print their usage for -h to os.Stderr; keep it out of the log.
	stderr := os.Stderr
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	os.Stderr = devnull
	err = run(append(slices.Clone(args[1:]), "-h"))
	os.Stderr = stderr
	devnull.Close()
	if !errors.Is(err, flag.ErrHelp) {
		t.Errorf("%s: orderhub %s does not accept the chart's arguments %q: %v", d.Name, args[0], args[1:], err)
	}
}

func TestIntegration_Chart_Lint(t *testing.T) {
	for _, sets := range [][]string{nil, {"webhook.certManager.enabled=true,hub.replicas=2,metrics.serviceMonitor.enabled=true,metrics.certManager.enabled=true,targetCluster.enabled=true,metrics.prometheusRule.enabled=true,metrics.dashboard.enabled=true"}} {
		args := []string{"lint", chartDir, "--strict"}
		for _, s := range sets {
			args = append(args, "--set", s)
		}
		out, err := exec.Command(helmBin(t), args...).CombinedOutput()
		if err != nil {
			t.Errorf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

func TestIntegration_Chart_Defaults(t *testing.T) {
	objs := mustTemplate(t)

	bases, err := filepath.Glob("../../config/crd/bases/*.yaml")
	if err != nil || len(bases) == 0 {
		t.Fatalf("no CRDs in config/crd/bases: %v", err)
	}
	crds := ofKind(objs, "CustomResourceDefinition")
	if len(crds) != len(bases) {
		t.Errorf("%d CRDs rendered, config/crd/bases has %d", len(crds), len(bases))
	}
	for _, c := range crds {
		if c.Typed.(*apiextensionsv1.CustomResourceDefinition).Annotations["helm.sh/resource-policy"] != "keep" {
			t.Errorf("CRD %s lacks helm.sh/resource-policy: keep", c.Name)
		}
	}

	for _, c := range []string{"hub", "identity", "topology"} {
		d := deployment(t, objs, c)
		pod := d.Spec.Template.Spec
		if pod.ServiceAccountName != "rel-orderhub-"+c || find(objs, "ServiceAccount", pod.ServiceAccountName) == nil {
			t.Errorf("%s: service account %q not rendered", c, pod.ServiceAccountName)
		}
		psc := pod.SecurityContext
		if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
			t.Errorf("%s: pod securityContext is not restricted: %+v", c, psc)
		}
		ctr := pod.Containers[0]
		sc := ctr.SecurityContext
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
			sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
			t.Errorf("%s: container securityContext is not restricted: %+v", c, sc)
		}
		if ctr.ReadinessProbe == nil || ctr.ReadinessProbe.HTTPGet == nil || ctr.ReadinessProbe.HTTPGet.Path != "/readyz" ||
			ctr.LivenessProbe == nil || ctr.LivenessProbe.HTTPGet == nil || ctr.LivenessProbe.HTTPGet.Path != "/healthz" {
			t.Errorf("%s: probes are not /readyz and /healthz", c)
		}
		if ctr.Resources.Requests.Memory().IsZero() || ctr.Resources.Limits.Memory().IsZero() {
			t.Errorf("%s: no memory request or limit", c)
		}
		if !slices.Contains(containerArgs(d), "--metrics-secure=true") {
			t.Errorf("%s: metrics are not served over HTTPS: %q", c, containerArgs(d))
		}
		if find(objs, "Service", "rel-orderhub-"+c+"-metrics") == nil {
			t.Errorf("%s: no metrics Service", c)
		}
		if find(objs, "Role", "rel-orderhub-"+c+"-leader-election") == nil {
			t.Errorf("%s: no leader-election Role", c)
		}
		checkArgsParse(t, d)
	}
	if n := len(ofKind(objs, "PodDisruptionBudget")); n != 0 {
		t.Errorf("%d PodDisruptionBudgets with one replica each", n)
	}

	// Leader election can renew its Lease.
	le := find(objs, "Role", "rel-orderhub-hub-leader-election").Typed.(*rbacv1.Role)
	if !rulesGrant(le.Rules, "coordination.k8s.io", "leases", "get", "create", "update") {
		t.Errorf("hub leader election cannot get, create and update leases: %+v", le.Rules)
	}
	// identity and topology are namespaced: a Role, no ClusterRole.
	for _, c := range []string{"identity", "topology"} {
		if find(objs, "Role", "rel-orderhub-"+c) == nil || find(objs, "ClusterRole", "rel-orderhub-"+c) != nil {
			t.Errorf("%s: want a namespaced Role and no ClusterRole", c)
		}
	}
	if find(objs, "ClusterRole", "rel-orderhub-hub") == nil {
		t.Error("no hub ClusterRole")
	}

	// The hub rotates its own webhook certificate by default.
	hubArgs := containerArgs(deployment(t, objs, "hub"))
	for _, want := range []string{"--webhook-cert-rotation", "--webhook-cert-secret=rel-orderhub-hub-webhook-cert",
		"--webhook-service=rel-orderhub-hub-webhook", "--webhook-mutating-configuration=rel-orderhub-hub-mutating",
		"--webhook-validating-configuration=rel-orderhub-hub-validating"} {
		if !slices.Contains(hubArgs, want) {
			t.Errorf("hub args lack %s: %q", want, hubArgs)
		}
	}
	if find(objs, "Secret", "rel-orderhub-hub-webhook-cert") == nil || find(objs, "Service", "rel-orderhub-hub-webhook") == nil {
		t.Error("no webhook certificate Secret or webhook Service")
	}
	m := find(objs, "MutatingWebhookConfiguration", "rel-orderhub-hub-mutating")
	v := find(objs, "ValidatingWebhookConfiguration", "rel-orderhub-hub-validating")
	if m == nil || v == nil {
		t.Fatal("webhook configurations missing")
	}
	var clientConfigs []admissionregistrationv1.WebhookClientConfig
	for _, w := range m.Typed.(*admissionregistrationv1.MutatingWebhookConfiguration).Webhooks {
		clientConfigs = append(clientConfigs, w.ClientConfig)
		if w.FailurePolicy == nil || *w.FailurePolicy != admissionregistrationv1.Fail {
			t.Errorf("mutating webhook %s: failurePolicy %v, want Fail", w.Name, w.FailurePolicy)
		}
	}
	for _, w := range v.Typed.(*admissionregistrationv1.ValidatingWebhookConfiguration).Webhooks {
		clientConfigs = append(clientConfigs, w.ClientConfig)
	}
	if len(clientConfigs) != 3 {
		t.Errorf("%d webhooks, want 3 (KeystoneService mutating and validating, ControlPlane validating)", len(clientConfigs))
	}
	for _, cc := range clientConfigs {
		if cc.Service == nil || cc.Service.Name != "rel-orderhub-hub-webhook" || cc.Service.Namespace != "orderhub-system" || cc.Service.Path == nil {
			t.Errorf("webhook client config %+v does not call the webhook Service", cc)
		}
	}
	if len(ofKind(objs, "Certificate")) != 0 || len(ofKind(objs, "ServiceMonitor")) != 0 {
		t.Error("cert-manager or ServiceMonitor objects rendered by default")
	}
}

func rulesGrant(rules []rbacv1.PolicyRule, group, resource string, verbs ...string) bool {
	for _, v := range verbs {
		ok := false
		for _, r := range rules {
			if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, v) {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// TestIntegration_Chart_Switches flips each switch and checks what it adds
// or removes.
func TestIntegration_Chart_Switches(t *testing.T) {
	for _, tc := range []struct {
		set   string
		check func(t *testing.T, objs []rendered)
	}{
		{"crds.enabled=false", func(t *testing.T, objs []rendered) {
			if n := len(ofKind(objs, "CustomResourceDefinition")); n != 0 {
				t.Errorf("%d CRDs rendered", n)
			}
		}},
		{"hub.enabled=false", func(t *testing.T, objs []rendered) {
			if find(objs, "Deployment", "rel-orderhub-hub") != nil || len(ofKind(objs, "MutatingWebhookConfiguration")) != 0 ||
				find(objs, "ClusterRole", "rel-orderhub-hub") != nil || find(objs, "ServiceAccount", "rel-orderhub-hub") != nil {
				t.Error("hub objects rendered")
			}
			deployment(t, objs, "identity")
			deployment(t, objs, "topology")
		}},
		{"identity.enabled=false", func(t *testing.T, objs []rendered) {
			if find(objs, "Deployment", "rel-orderhub-identity") != nil || find(objs, "Role", "rel-orderhub-identity") != nil {
				t.Error("identity objects rendered")
			}
		}},
		{"topology.enabled=false", func(t *testing.T, objs []rendered) {
			if find(objs, "Deployment", "rel-orderhub-topology") != nil || find(objs, "Role", "rel-orderhub-topology") != nil {
				t.Error("topology objects rendered")
			}
		}},
		{"webhook.enabled=false", func(t *testing.T, objs []rendered) {
			if len(ofKind(objs, "MutatingWebhookConfiguration"))+len(ofKind(objs, "ValidatingWebhookConfiguration")) != 0 ||
				find(objs, "Secret", "rel-orderhub-hub-webhook-cert") != nil {
				t.Error("webhook objects rendered")
			}
			d := deployment(t, objs, "hub")
			if !slices.Contains(containerArgs(d), "--webhooks=false") || slices.Contains(containerArgs(d), "--webhook-cert-rotation") {
				t.Errorf("hub args %q", containerArgs(d))
			}
			checkArgsParse(t, d)
		}},
		{"webhook.certManager.enabled=true", func(t *testing.T, objs []rendered) {
			if find(objs, "Certificate", "rel-orderhub-hub-webhook-cert") == nil || find(objs, "Issuer", "rel-orderhub-hub-selfsigned") == nil {
				t.Error("no Certificate and self-signed Issuer")
			}
			if find(objs, "Secret", "rel-orderhub-hub-webhook-cert") != nil || find(objs, "Role", "rel-orderhub-hub-webhook-cert") != nil {
				t.Error("the hub's own certificate Secret or its Role rendered with cert-manager")
			}
			for _, k := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
				for _, o := range ofKind(objs, k) {
					md := o.Raw["metadata"].(map[string]any)
					ann, _ := md["annotations"].(map[string]any)
					if ann["cert-manager.io/inject-ca-from"] != "orderhub-system/rel-orderhub-hub-webhook-cert" {
						t.Errorf("%s %s: no CA injection annotation: %v", k, o.Name, ann)
					}
				}
			}
			if d := deployment(t, objs, "hub"); slices.Contains(containerArgs(d), "--webhook-cert-rotation") {
				t.Errorf("hub rotates its certificate with cert-manager on: %q", containerArgs(d))
			}
		}},
		{"webhook.certManager.enabled=true,webhook.certManager.issuerRef.name=ca,webhook.certManager.issuerRef.kind=ClusterIssuer", func(t *testing.T, objs []rendered) {
			c := find(objs, "Certificate", "rel-orderhub-hub-webhook-cert")
			if c == nil || find(objs, "Issuer", "rel-orderhub-hub-selfsigned") != nil {
				t.Fatal("want the Certificate and no self-signed Issuer")
			}
			ref := c.Raw["spec"].(map[string]any)["issuerRef"].(map[string]any)
			if ref["name"] != "ca" || ref["kind"] != "ClusterIssuer" {
				t.Errorf("issuerRef %v", ref)
			}
		}},
		{"webhook.failurePolicy=Ignore", func(t *testing.T, objs []rendered) {
			for _, w := range find(objs, "ValidatingWebhookConfiguration", "rel-orderhub-hub-validating").Typed.(*admissionregistrationv1.ValidatingWebhookConfiguration).Webhooks {
				if w.FailurePolicy == nil || *w.FailurePolicy != admissionregistrationv1.Ignore {
					t.Errorf("%s: failurePolicy %v", w.Name, w.FailurePolicy)
				}
			}
		}},
		{"hub.replicas=2", func(t *testing.T, objs []rendered) {
			pdbs := ofKind(objs, "PodDisruptionBudget")
			if len(pdbs) != 1 || pdbs[0].Name != "rel-orderhub-hub" {
				t.Errorf("PodDisruptionBudgets %v, want only the hub's", pdbs)
			}
		}},
		{"metrics.enabled=false", func(t *testing.T, objs []rendered) {
			for _, c := range []string{"hub", "identity", "topology"} {
				d := deployment(t, objs, c)
				if !slices.Contains(containerArgs(d), "--metrics-bind-address=0") || find(objs, "Service", "rel-orderhub-"+c+"-metrics") != nil {
					t.Errorf("%s: metrics still on", c)
				}
				checkArgsParse(t, d)
			}
			if find(objs, "ClusterRole", "rel-orderhub-metrics-auth") != nil {
				t.Error("metrics auth ClusterRole without metrics")
			}
		}},
		{"metrics.secure=false", func(t *testing.T, objs []rendered) {
			if find(objs, "ClusterRole", "rel-orderhub-metrics-auth") != nil {
				t.Error("metrics auth ClusterRole for plain HTTP metrics")
			}
			if d := deployment(t, objs, "hub"); !slices.Contains(containerArgs(d), "--metrics-secure=false") {
				t.Errorf("hub args %q", containerArgs(d))
			}
		}},
		{"metrics.serviceMonitor.enabled=true,metrics.certManager.enabled=true", func(t *testing.T, objs []rendered) {
			if n := len(ofKind(objs, "ServiceMonitor")); n != 3 {
				t.Errorf("%d ServiceMonitors, want 3", n)
			}
			if len(ofKind(objs, "Certificate")) != 3 || find(objs, "Issuer", "rel-orderhub-metrics-selfsigned") == nil {
				t.Error("want a metrics Certificate per controller and the self-signed Issuer")
			}
			for _, c := range []string{"hub", "identity", "topology"} {
				d := deployment(t, objs, c)
				if !slices.Contains(containerArgs(d), "--metrics-cert-dir=/var/run/orderhub/metrics-certs") {
					t.Errorf("%s args %q", c, containerArgs(d))
				}
				checkArgsParse(t, d)
				sm := find(objs, "ServiceMonitor", "rel-orderhub-"+c)
				tc := sm.Raw["spec"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)["tlsConfig"].(map[string]any)
				if tc["serverName"] != "rel-orderhub-"+c+"-metrics.orderhub-system.svc" || tc["insecureSkipVerify"] != nil {
					t.Errorf("%s: tlsConfig %v", c, tc)
				}
			}
		}},
		{"metrics.certManager.enabled=true,metrics.certManager.issuerRef.name=ca,metrics.certManager.issuerRef.kind=ClusterIssuer", func(t *testing.T, objs []rendered) {
			c := find(objs, "Certificate", "rel-orderhub-identity-metrics-cert")
			if c == nil || find(objs, "Issuer", "rel-orderhub-metrics-selfsigned") != nil {
				t.Fatal("want the Certificate and no self-signed Issuer")
			}
			if ref := c.Raw["spec"].(map[string]any)["issuerRef"].(map[string]any); ref["name"] != "ca" || ref["kind"] != "ClusterIssuer" {
				t.Errorf("issuerRef %v", ref)
			}
		}},
		{"metrics.serviceMonitor.enabled=true,metrics.serviceMonitor.insecureSkipVerify=true", func(t *testing.T, objs []rendered) {
			tc := find(objs, "ServiceMonitor", "rel-orderhub-hub").Raw["spec"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)["tlsConfig"].(map[string]any)
			if tc["insecureSkipVerify"] != true || len(ofKind(objs, "Certificate")) != 0 {
				t.Errorf("tlsConfig %v", tc)
			}
		}},
		{"metrics.serviceMonitor.enabled=true,metrics.secure=false", func(t *testing.T, objs []rendered) {
			ep := find(objs, "ServiceMonitor", "rel-orderhub-hub").Raw["spec"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)
			if ep["scheme"] != "http" || ep["tlsConfig"] != nil {
				t.Errorf("endpoint %v", ep)
			}
		}},
		{"targetCluster.enabled=true", func(t *testing.T, objs []rendered) {
			cr := find(objs, "ClusterRole", "rel-orderhub-hub-target")
			if cr == nil || find(objs, "Secret", "rel-orderhub-hub-target-token") == nil || find(objs, "ClusterRoleBinding", "rel-orderhub-hub-target") == nil {
				t.Fatal("target-cluster RBAC not rendered")
			}
			if !rulesGrant(cr.Typed.(*rbacv1.ClusterRole).Rules, "", "secrets", "get", "create", "update", "delete") {
				t.Error("the target-cluster role cannot delete the delivered Secrets")
			}
		}},
		{"hub.hostNetwork=true", func(t *testing.T, objs []rendered) {
			pod := deployment(t, objs, "hub").Spec.Template.Spec
			if !pod.HostNetwork || pod.DNSPolicy != corev1.DNSClusterFirstWithHostNet {
				t.Errorf("hostNetwork %v, dnsPolicy %q", pod.HostNetwork, pod.DNSPolicy)
			}
			if deployment(t, objs, "identity").Spec.Template.Spec.HostNetwork {
				t.Error("identity on the host network too")
			}
			// Its ports are the node's: a rolling update replaces the old pod first.
			if ru := deployment(t, objs, "hub").Spec.Strategy.RollingUpdate; ru == nil || ru.MaxSurge == nil || ru.MaxSurge.IntValue() != 0 ||
				ru.MaxUnavailable == nil || ru.MaxUnavailable.IntValue() != 1 {
				t.Errorf("hub strategy %+v, want maxSurge 0, maxUnavailable 1", deployment(t, objs, "hub").Spec.Strategy)
			}
			if ru := deployment(t, objs, "identity").Spec.Strategy.RollingUpdate; ru != nil {
				t.Errorf("identity (pod network) strategy %+v, want the default surge", ru)
			}
		}},
		{"hub.targetClusters.enabled=true", func(t *testing.T, objs []rendered) {
			d := deployment(t, objs, "hub")
			if !slices.Contains(containerArgs(d), "--target-cluster-secret-namespace=orderhub-system") {
				t.Errorf("hub args %q", containerArgs(d))
			}
			checkArgsParse(t, d)
		}},
		{"hub.reconcilers.controlPlane=false", func(t *testing.T, objs []rendered) {
			if d := deployment(t, objs, "hub"); !slices.Contains(containerArgs(d), "--controlplane-reconciler=false") {
				t.Errorf("hub args %q", containerArgs(d))
			}
		}},
		{"openbao.address=https://openbao:8200,openbao.role=team-a", func(t *testing.T, objs []rendered) {
			d := deployment(t, objs, "hub")
			args := containerArgs(d)
			for _, want := range []string{"--openbao-address=https://openbao:8200", "--openbao-role=team-a",
				"--openbao-auth-mount=kubernetes", "--openbao-service-account=eso-tenant-auth", "--openbao-kv-mount=kv-v2"} {
				if !slices.Contains(args, want) {
					t.Errorf("hub args %q lack %s", args, want)
				}
			}
			for _, a := range args {
				if strings.HasPrefix(a, "--openbao-token") {
					t.Errorf("hub args %q pass a removed token flag", args)
				}
			}
			checkArgsParse(t, d)
		}},
		{"identity.reconcileInterval=10,identity.tls.caSecret=keystone-ca", func(t *testing.T, objs []rendered) {
			d := deployment(t, objs, "identity")
			if v, _ := envValue(d, "RECONCILE_INTERVAL"); v != "10" {
				t.Errorf("RECONCILE_INTERVAL = %q", v)
			}
			if v, _ := envValue(d, "OS_CACERT"); v != "/etc/orderhub/keystone-ca/ca.crt" {
				t.Errorf("OS_CACERT = %q", v)
			}
			ef := d.Spec.Template.Spec.Containers[0].EnvFrom
			if len(ef) != 1 || ef[0].SecretRef == nil || ef[0].SecretRef.Name != "keystone-keystone-admin" {
				t.Errorf("envFrom %+v, want the keystone-keystone-admin Secret", ef)
			}
		}},
		{"topology.deleteGuestUser=true,topology.reconcileInterval=30s,topology.rabbitmq.release=broker", func(t *testing.T, objs []rendered) {
			d := deployment(t, objs, "topology")
			if v, _ := envValue(d, "RABBITMQ_TOPOLOGY_CONTROLLER_DELETE_GUEST_USER"); v != "true" {
				t.Errorf("RABBITMQ_TOPOLOGY_CONTROLLER_DELETE_GUEST_USER = %q", v)
			}
			if v, _ := envValue(d, "RECONCILE_INTERVAL"); v != "30s" {
				t.Errorf("RECONCILE_INTERVAL = %q", v)
			}
			if v, _ := envValue(d, "RABBITMQ_HOST"); v != "broker" {
				t.Errorf("RABBITMQ_HOST = %q", v)
			}
			for _, e := range d.Spec.Template.Spec.Containers[0].Env {
				if e.Name == "RABBITMQ_PASSWORD" && (e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != "broker-admin-user") {
					t.Errorf("RABBITMQ_PASSWORD from %+v, want the broker-admin-user Secret", e.ValueFrom)
				}
			}
		}},
	} {
		t.Run(tc.set, func(t *testing.T) {
			objs := mustTemplate(t, tc.set)
			tc.check(t, objs)
		})
	}
}

// A ServiceMonitor over HTTPS verifies the metrics certificate: without a
// cert-manager certificate the chart asks for one (or for skipping the check).
func TestIntegration_Chart_ServiceMonitorRefusesAnUnverifiableCertificate(t *testing.T) {
	_, err := helmTemplate(t, "metrics.serviceMonitor.enabled=true")
	if err == nil || !strings.Contains(err.Error(), "set metrics.certManager.enabled=true") {
		t.Errorf("a ServiceMonitor without a verifiable certificate: %v", err)
	}
}

// The OpenBao token values are gone with token auth (docs/reference/openbao.md,
// "Upgrading from token auth"): the schema refuses them instead of ignoring
// them, so a values file written for an older release fails loudly.
func TestIntegration_Chart_RefusesTheRemovedOpenBaoTokenValues(t *testing.T) {
	for _, set := range []string{"openbao.address=https://openbao:8200,openbao.tokenSecret=openbao/token", "openbao.tokenKey=token", "openbao.role="} {
		if _, err := helmTemplate(t, set); err == nil {
			t.Errorf("--set %s was accepted", set)
		}
	}
}

// TestIntegration_Chart_ReadmeListsEveryValue checks that README.md names
// every leaf of values.yaml as `key`.
func TestIntegration_Chart_ReadmeListsEveryValue(t *testing.T) {
	vb, err := os.ReadFile(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := os.ReadFile(filepath.Join(chartDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var values map[string]any
	if err := yaml.Unmarshal(vb, &values); err != nil {
		t.Fatal(err)
	}
	keys := leafKeys("", values)
	if len(keys) < 50 {
		t.Fatalf("only %d values found in values.yaml", len(keys))
	}
	readme := string(rb)
	var missing []string
	for _, k := range keys {
		if !strings.Contains(readme, "`"+k+"`") {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		t.Errorf("README.md does not list %d values: %s", len(missing), strings.Join(missing, ", "))
	}
}

// leafKeys lists the dotted keys of v's leaves; an empty map is a leaf, and
// so is any map whose values are not all maps of their own (resources).
func leafKeys(prefix string, v map[string]any) []string {
	var keys []string
	for k, x := range v {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if m, ok := x.(map[string]any); ok && len(m) > 0 && !isResources(k) {
			keys = append(keys, leafKeys(key, m)...)
			continue
		}
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}

func isResources(k string) bool { return k == "resources" }

// TestIntegration_Chart_SchemaCoversEveryValue checks that values.schema.json
// (which refuses unknown values) describes exactly the values of values.yaml,
// besides parentChartKeys.
func TestIntegration_Chart_SchemaCoversEveryValue(t *testing.T) {
	vb, err := os.ReadFile(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sb, err := os.ReadFile(filepath.Join(chartDir, "values.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var values, schema map[string]any
	if err := yaml.Unmarshal(vb, &values); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(sb, &schema); err != nil {
		t.Fatal(err)
	}
	want := leafKeys("", values)
	// The keys a parent chart adds are in the schema only (TestIntegration_Chart_AsDependency).
	got := slices.DeleteFunc(schemaKeys("", schema), func(k string) bool { return slices.Contains(parentChartKeys, k) })
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("values.schema.json describes\n%q\nvalues.yaml has\n%q", got, want)
	}
	if _, err := helmTemplate(t, "hub.replica=2"); err == nil || !strings.Contains(err.Error(), "replica") {
		t.Errorf("a misspelt value is accepted: %v", err)
	}
}

// schemaKeys lists the dotted keys of a JSON schema's leaf properties.
func schemaKeys(prefix string, s map[string]any) []string {
	props, _ := s["properties"].(map[string]any)
	var keys []string
	for k, p := range props {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if ps, ok := p.(map[string]any); ok && ps["properties"] != nil {
			keys = append(keys, schemaKeys(key, ps)...)
			continue
		}
		keys = append(keys, key)
	}
	return keys
}

// TestIntegration_Chart_ImageDigest: with image.digest set every controller
// runs repository@digest (the index `make image` wrote), without it
// repository:tag; a digest that is not sha256:<64 hex> is refused by the
// values schema.
func TestIntegration_Chart_ImageDigest(t *testing.T) {
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for set, want := range map[string]string{
		"image.digest=" + digest: "localhost/orderhub@" + digest,
		"image.tag=v9.9.9":       "localhost/orderhub:v9.9.9",
	} {
		objs := mustTemplate(t, set)
		for _, c := range []string{"hub", "identity", "topology"} {
			if got := deployment(t, objs, c).Spec.Template.Spec.Containers[0].Image; got != want {
				t.Errorf("--set %s: %s runs %q, want %q", set, c, got, want)
			}
		}
	}
	for _, bad := range []string{"image.digest=latest", "image.digest=sha256:abc"} {
		if _, err := helmTemplate(t, bad); err == nil || !strings.Contains(err.Error(), "image/digest") {
			t.Errorf("--set %s: %v", bad, err)
		}
	}
}
