//go:build integration

package topology

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// oshCharts are the OpenStack-Helm consumer charts whose rendered
// templates/rabbitmq-topology.yaml testdata/openstack-helm holds (see each
// file's header for the chart commit and values).
var oshCharts = []string{"nova", "cinder", "glance", "keystone", "heat", "neutron", "barbican"}

// oshChecks are OpenStack-Helm's CI check script in its two versions
// (testdata/openstack-helm/README.md names their sources), kept unchanged.
var oshChecks = []string{"verify-rabbitmq-topology.sh", "verify-rabbitmq-topology-two-groups.sh"}

// oshPassword is the password every chart's values give its messaging
// account (endpoints.oslo_messaging.auth.<chart>.password).
const oshPassword = "password"

// Each consumer chart's rendered rabbitmq-topology.yaml applies unchanged
// with kubectl, becomes Ready under orderhub topology, and passes both
// versions of OpenStack-Helm's CI check script; the broker then holds the
// chart's vhost, its account with the chart's password and full permissions,
// and its policies (docs/topology.md, "OpenStack-Helm charts").
func TestIntegration_Topology_OpenStackHelmCharts(t *testing.T) {
	kubectl := stackKubectl(t)
	pod := oshStandIns(t, suiteNS, "rabbitmq-topology-controller", "topology-controller")
	env := oshEnv(t, kubectl, suiteNS, pod, waitTimeout)
	for _, chart := range oshCharts {
		t.Run(chart, func(t *testing.T) {
			oshApply(t, env, kubectl, suiteNS, chart+".yaml", chart)
			oshGuest(t)
			for _, check := range oshChecks {
				oshCheck(t, env, check, suiteNS)
			}
			checkOSHBroker(t, chart)
		})
	}
}

// stackKubectl is the stack's kubectl (ORDERHUB_K8S_DIR).
func stackKubectl(t *testing.T) string {
	t.Helper()
	kubectl := filepath.Join(os.Getenv("ORDERHUB_K8S_DIR"), "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		t.Fatalf("kubectl of the stack (ORDERHUB_K8S_DIR, from hack/tools.sh env): %v", err)
	}
	return kubectl
}

// oshEnv is the environment of kubectl and the check scripts: the stack's
// kubeconfig, the scripts' TIMEOUT and oshKubectlShim first in PATH.
func oshEnv(t *testing.T, kubectl, ns, pod string, timeout time.Duration) []string {
	return append(os.Environ(), "KUBECONFIG="+stack.Kube.Kubeconfig, "KUBECACHEDIR="+t.TempDir(),
		"TIMEOUT="+timeout.String(), "PATH="+oshKubectlShim(t, kubectl, ns, pod)+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// oshApply applies testdata/openstack-helm/<file> unchanged into ns and
// registers its deletion; the chart's vhost and user (deletionPolicy retain
// keeps them on the broker) are then removed by hand.
func oshApply(t *testing.T, env []string, kubectl, ns, file, chart string) {
	t.Helper()
	path := filepath.Join("testdata", "openstack-helm", file)
	run(t, env, kubectl, "-n", ns, "apply", "-f", path)
	t.Cleanup(func() {
		run(t, env, kubectl, "-n", ns, "delete", "--wait=true", "--timeout="+waitTimeout.String(), "-f", path)
		_, _ = admin.DeleteVhost(chart)
		_, _ = admin.DeleteUser(chart)
	})
}

// oshCheck runs the check script testdata/openstack-helm/<script> for
// namespace ns and fails t unless it verified the topology.
func oshCheck(t *testing.T, env []string, script, ns string) {
	t.Helper()
	out := run(t, env, "bash", filepath.Join("testdata", "openstack-helm", script), ns)
	if !strings.Contains(out, "RabbitMQ topology verified") {
		t.Fatalf("%s did not verify:\n%s", script, out)
	}
}

// oshGuest declares the guest account, as the rabbitmq chart's
// definitions.json does on every broker boot, and waits until the guest
// deleter removed it, so the scripts' "guest account: absent" checks
// something.
func oshGuest(t *testing.T) {
	t.Helper()
	if _, err := admin.PutUser("guest", rabbithole.UserSettings{Password: "guest", Tags: rabbithole.UserTags{"administrator"}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the guest account is deleted", func() error {
		if _, err := admin.GetUser("guest"); !isNotFound(err) {
			return fmt.Errorf("guest still present (%v)", err)
		}
		return nil
	})
}

// checkOSHBroker asserts, on the broker, what the chart's service relies on:
// its account logs in with the chart's password and may do everything in
// its vhost, and the chart's TTL policy (all but barbican declare one) is in
// place.
func checkOSHBroker(t *testing.T, chart string) {
	t.Helper()
	u, err := admin.GetUser(chart)
	if err != nil {
		t.Fatalf("broker user %s: %v", chart, err)
	}
	if !passwordMatches(u.PasswordHash, u.HashingAlgorithm, oshPassword) || len(u.Tags) != 0 {
		t.Fatalf("broker user %s: tags %v, password matches %v; want no tags and the chart's password",
			chart, u.Tags, passwordMatches(u.PasswordHash, u.HashingAlgorithm, oshPassword))
	}
	p, err := admin.GetPermissionsIn(chart, chart)
	if err != nil {
		t.Fatalf("broker permissions of %s in %s: %v", chart, chart, err)
	}
	if p.Configure != ".*" || p.Write != ".*" || p.Read != ".*" {
		t.Fatalf("broker permissions of %s: %+v, want .* each", chart, p)
	}
	pol, err := admin.GetPolicy(chart, "ha_ttl_"+chart)
	if chart == "barbican" {
		if !isNotFound(err) {
			t.Fatalf("barbican declares no policy, the broker has %+v (%v)", pol, err)
		}
		return
	}
	if err != nil || pol.Pattern != `^(?!(amq\.|reply_)).*` || pol.Definition["message-ttl"] != float64(70000) {
		t.Fatalf("broker policy ha_ttl_%s: %+v (%v)", chart, pol, err)
	}
}

// isNotFound reports whether err is the broker's 404.
func isNotFound(err error) bool {
	var e rabbithole.ErrorResponse
	return errors.As(err, &e) && e.StatusCode == http.StatusNotFound
}

// oshStandIns declares in ns what the check script looks up before it reads
// the broker but that this suite runs as processes, not pods: the
// reconciler's Deployment (named deployment, labelled application=rabbitmq
// and component; the reconciler runs as a process; no replicas) and the
// broker Pod (never scheduled; kubectl exec into it is served by
// oshKubectlShim). It returns the Pod's name.
func oshStandIns(t *testing.T, ns, deployment, component string) string {
	t.Helper()
	ctx := context.Background()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "default"}}
	if err := kube.Create(ctx, sa); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	labels := func(component string) map[string]string {
		return map[string]string{"application": "rabbitmq", "component": component}
	}
	zero := int32(0)
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: deployment,
		Labels: labels(component)}, Spec: appsv1.DeploymentSpec{Replicas: &zero,
		Selector: &metav1.LabelSelector{MatchLabels: labels(component)},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels(component)},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "controller", Image: "orderhub"}}}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "rabbitmq-rabbitmq-0", Labels: labels("server")},
		Spec: corev1.PodSpec{AutomountServiceAccountToken: ptr(false),
			Containers: []corev1.Container{{Name: "rabbitmq", Image: "rabbitmq"}}}}
	create(t, dep)
	create(t, pod)
	return pod.Name
}

// oshKubectlShim writes, into a new folder it returns, a kubectl that runs
// `kubectl -n <ns> exec <pod> -c rabbitmq -- rabbitmqctl ARGS` as
// rabbitmqctl ARGS against the suite's broker node, refuses any other exec,
// and hands every other command to the stack's kubectl unchanged.
func oshKubectlShim(t *testing.T, kubectl, ns, pod string) string {
	t.Helper()
	dir := t.TempDir()
	r := stack.RabbitMQ
	script := fmt.Sprintf(`#!/bin/bash
if [ "$3" = exec ]; then
  if [ "$1 $2 $4 $5 $6 $7 $8" != "-n %[1]s %[2]s -c rabbitmq -- rabbitmqctl" ]; then
    echo "kubectl shim: unexpected exec: $*" >&2; exit 2
  fi
  shift 8
  exec env %[3]s /usr/lib/rabbitmq/bin/rabbitmqctl "$@"
fi
exec %[4]q "$@"
`, ns, pod, strings.Join(r.CtlEnv(), " "), kubectl)
	if err := os.WriteFile(filepath.Join(dir, "kubectl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// run runs name with args under env and returns its combined output,
// failing t when it exits non-zero.
func run(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	t.Logf("%s %s:\n%s", filepath.Base(name), strings.Join(args, " "), out)
	return string(out)
}
