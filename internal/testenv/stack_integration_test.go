//go:build integration

package testenv

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	bao "github.com/openbao/openbao/api/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// The whole stack, started once for this package's tests.
var stack *Stack

// childDirEnv makes the test binary a stack owner for TestKilledRunLeavesNoServer:
// it starts a stack in that folder, reports ready, and waits to be killed.
const childDirEnv = "ORDERHUB_TESTENV_CHILD_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childDirEnv); dir != "" {
		os.Exit(runChild(dir))
	}
	if dir := os.Getenv(nodeChildDirEnv); dir != "" {
		os.Exit(runNodeChild(dir))
	}
	ctrllog.SetLogger(zap.New(zap.WriteTo(io.Discard))) // envtest.InstallCRDs logs through it
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	var err error
	stack, err = Start(ctx, Options{Kube: true, ControllerManager: true, Keystone: true, RabbitMQ: true,
		OpenBao: true, KORC: true, ESO: true, Logf: func(f string, a ...any) { fmt.Printf("testenv: "+f+"\n", a...) }})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the stack:", err)
		os.Exit(1)
	}
	code := stack.RunTests(m, nil)
	_ = stack.Stop()
	os.Exit(code)
}

func runChild(dir string) int {
	st, err := Start(context.Background(), Options{Kube: true, RabbitMQ: true, OpenBao: true, Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_ = st
	if err := os.WriteFile(filepath.Join(dir, "child-ready"), nil, 0o644); err != nil {
		return 1
	}
	select {} // until killed
}

func kubeClient(t *testing.T) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, orcv1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(stack.Kube.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// eventually is Eventually for this package's tests.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	Eventually(t, timeout, what, cond)
}

func keystoneAdmin(t *testing.T, ctx context.Context) *gophercloud.ServiceClient {
	t.Helper()
	k := stack.Keystone
	pc, err := openstack.AuthenticatedClient(ctx, gophercloud.AuthOptions{
		IdentityEndpoint: k.URL, Username: k.AdminUser, Password: k.AdminPassword, DomainName: k.AdminUserDomain,
		Scope: &gophercloud.AuthScope{ProjectName: k.AdminProject, DomainName: k.AdminProjectDomain},
	})
	if err != nil {
		t.Fatalf("authenticate as admin: %v", err)
	}
	ic, err := openstack.NewIdentityV3(pc, gophercloud.EndpointOpts{Region: k.Region})
	if err != nil {
		t.Fatal(err)
	}
	return ic
}

func TestIntegration_Keystone_TokenAndProject(t *testing.T) {
	ctx := context.Background()
	ic := keystoneAdmin(t, ctx)
	if ic.TokenID == "" {
		t.Fatal("no token issued")
	}
	p, err := projects.Create(ctx, ic, projects.CreateOpts{Name: "testenv-project", DomainID: "default"}).Extract()
	if err != nil {
		t.Fatalf("create project: %v", err)
	}
	got, err := projects.Get(ctx, ic, p.ID).Extract()
	if err != nil || got.Name != "testenv-project" {
		t.Fatalf("get project %s: %v %+v", p.ID, err, got)
	}
	// A wrong password is refused, and counted (lockout_failure_attempts is set).
	_, err = openstack.AuthenticatedClient(ctx, gophercloud.AuthOptions{IdentityEndpoint: stack.Keystone.URL,
		Username: "admin", Password: "wrong", DomainName: "Default"})
	if !gophercloud.ResponseCodeIs(err, 401) {
		t.Fatalf("wrong password: want 401, got %v", err)
	}
}

func TestIntegration_RabbitMQ_VhostPutGet(t *testing.T) {
	r := stack.RabbitMQ
	rc, err := rabbithole.NewClient(r.URL, r.User, r.Password)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rc.PutVhost("testenv/vhost", rabbithole.VhostSettings{Description: "from testenv", Tracing: false})
	if err != nil {
		t.Fatalf("PUT vhost: %v", err)
	}
	resp.Body.Close()
	vh, err := rc.GetVhost("testenv/vhost")
	if err != nil {
		t.Fatalf("GET vhost: %v", err)
	}
	if vh.Name != "testenv/vhost" || vh.Description != "from testenv" {
		t.Fatalf("vhost = %+v", vh)
	}
}

func TestIntegration_OpenBao_KVv2WriteRead(t *testing.T) {
	ctx := context.Background()
	cfg := bao.DefaultConfig()
	cfg.Address = stack.OpenBao.Addr
	c, err := bao.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.SetToken(stack.OpenBao.Token)
	kv := c.KVv2(stack.OpenBao.KVMount)
	if _, err := kv.Put(ctx, "testenv/kv", map[string]any{"password": "s3cr3t"}); err != nil {
		t.Fatalf("put: %v", err)
	}
	sec, err := kv.Get(ctx, "testenv/kv")
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if sec.Data["password"] != "s3cr3t" || sec.VersionMetadata == nil || sec.VersionMetadata.Version != 1 {
		t.Fatalf("read back %+v %+v", sec.Data, sec.VersionMetadata)
	}
}

func adminCloudsSecret(t *testing.T, ctx context.Context, c client.Client, ns, name string) {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		StringData: map[string]string{"clouds.yaml": stack.Keystone.CloudsYAMLDocument("admin")}}
	if err := c.Create(ctx, s); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

func TestIntegration_KORC_ManagedServiceAvailableInKeystone(t *testing.T) {
	ctx := context.Background()
	c := kubeClient(t)
	adminCloudsSecret(t, ctx, c, "default", "korc-admin")
	svc := &orcv1alpha1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "testenv-svc", Namespace: "default"},
		Spec: orcv1alpha1.ServiceSpec{
			CloudCredentialsRef: orcv1alpha1.CloudCredentialsReference{SecretName: "korc-admin", CloudName: "admin"},
			ManagementPolicy:    orcv1alpha1.ManagementPolicyManaged,
			Resource:            &orcv1alpha1.ServiceResourceSpec{Type: "testenv-type", Description: ptr.To("made by K-ORC")},
		},
	}
	if err := c.Create(ctx, svc); err != nil {
		t.Fatal(err)
	}
	var id string
	eventually(t, 2*time.Minute, "K-ORC Service Available", func() error {
		var got orcv1alpha1.Service
		if err := c.Get(ctx, client.ObjectKeyFromObject(svc), &got); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(got.Status.Conditions, orcv1alpha1.ConditionAvailable) || got.Status.ID == nil {
			return fmt.Errorf("conditions %+v", got.Status.Conditions)
		}
		id = *got.Status.ID
		return nil
	})
	ks, err := services.Get(ctx, keystoneAdmin(t, ctx), id).Extract()
	if err != nil {
		t.Fatalf("service %s not in Keystone: %v", id, err)
	}
	if ks.Type != "testenv-type" || ks.Extra["name"] != "testenv-svc" {
		t.Fatalf("Keystone service = %+v", ks)
	}
}

func TestIntegration_ESO_PushAndPullThroughOpenBao(t *testing.T) {
	ctx := context.Background()
	c := kubeClient(t)
	ns := "default"
	for _, s := range []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Name: "bao-token", Namespace: ns}, StringData: map[string]string{"token": stack.OpenBao.Token}},
		{ObjectMeta: metav1.ObjectMeta{Name: "eso-source", Namespace: ns}, StringData: map[string]string{"password": "pushed-value"}},
	} {
		if err := c.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	objs := []*unstructured.Unstructured{
		{Object: map[string]any{"apiVersion": "external-secrets.io/v1", "kind": "SecretStore",
			"metadata": map[string]any{"name": "bao", "namespace": ns},
			"spec": map[string]any{"provider": map[string]any{"vault": map[string]any{
				"server": stack.OpenBao.Addr, "path": stack.OpenBao.KVMount, "version": "v2",
				"auth": map[string]any{"tokenSecretRef": map[string]any{"name": "bao-token", "key": "token"}}}}}}},
		{Object: map[string]any{"apiVersion": "external-secrets.io/v1alpha1", "kind": "PushSecret",
			"metadata": map[string]any{"name": "push", "namespace": ns},
			"spec": map[string]any{"refreshInterval": "1h", "deletionPolicy": "Delete",
				"secretStoreRefs": []any{map[string]any{"name": "bao", "kind": "SecretStore"}},
				"selector":        map[string]any{"secret": map[string]any{"name": "eso-source"}},
				"data": []any{map[string]any{"match": map[string]any{"secretKey": "password",
					"remoteRef": map[string]any{"remoteKey": "testenv/eso", "property": "password"}}}}}}},
		{Object: map[string]any{"apiVersion": "external-secrets.io/v1", "kind": "ExternalSecret",
			"metadata": map[string]any{"name": "pull", "namespace": ns},
			"spec": map[string]any{"refreshInterval": "5s",
				"secretStoreRef": map[string]any{"name": "bao", "kind": "SecretStore"},
				"target":         map[string]any{"name": "eso-delivered", "creationPolicy": "Owner"},
				"data": []any{map[string]any{"secretKey": "password",
					"remoteRef": map[string]any{"key": "testenv/eso", "property": "password"}}}}}},
	}
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil {
			t.Fatalf("create %s: %v", o.GetKind(), err)
		}
	}
	for _, o := range objs {
		eventually(t, 2*time.Minute, o.GetKind()+" Ready", func() error {
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(o.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKeyFromObject(o), got); err != nil {
				return err
			}
			conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
			for _, cond := range conds {
				m, _ := cond.(map[string]any)
				if m["type"] == "Ready" && m["status"] == "True" {
					return nil
				}
			}
			return fmt.Errorf("conditions %v", conds)
		})
	}
	var delivered corev1.Secret
	eventually(t, time.Minute, "delivered Secret", func() error {
		return c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "eso-delivered"}, &delivered)
	})
	if string(delivered.Data["password"]) != "pushed-value" {
		t.Fatalf("delivered password = %q", delivered.Data["password"])
	}
	// The value really went through the OpenBao-compatible server.
	cfg := bao.DefaultConfig()
	cfg.Address = stack.OpenBao.Addr
	bc, _ := bao.NewClient(cfg)
	bc.SetToken(stack.OpenBao.Token)
	sec, err := bc.KVv2(stack.OpenBao.KVMount).Get(ctx, "testenv/eso")
	if err != nil || sec.Data["password"] != "pushed-value" {
		t.Fatalf("OpenBao holds %v (%v)", sec, err)
	}
}

func TestIntegration_ControllerManager_OwnerReferenceGC(t *testing.T) {
	ctx := context.Background()
	c := kubeClient(t)
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "gc-owner", Namespace: "default"}}
	if err := c.Create(ctx, owner); err != nil {
		t.Fatal(err)
	}
	child := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "gc-child", Namespace: "default",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}}}}
	if err := c.Create(ctx, child); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, owner, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "owned Secret collected", func() error {
		err := c.Get(ctx, client.ObjectKeyFromObject(child), &corev1.Secret{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (%v)", err)
	})
	// And the namespace controller finishes a namespace deletion.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "testenv-ns"}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: ns.Name}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, ns); err != nil {
		t.Fatal(err)
	}
	eventually(t, 2*time.Minute, "namespace deleted", func() error {
		err := c.Get(ctx, client.ObjectKeyFromObject(ns), &corev1.Namespace{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (%v)", err)
	})
}

// Killing the process that owns a stack, even with SIGKILL, leaves no server
// running: each recorded pid is gone.
func TestIntegration_KilledRunLeavesNoServer(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childDirEnv+"="+dir)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Whatever happens below, the child (and so its servers) does not outlive the test.
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	eventually(t, 5*time.Minute, "child stack ready", func() error {
		select {
		case err := <-done:
			t.Fatalf("child exited early: %v", err)
		default:
		}
		_, err := os.Stat(filepath.Join(dir, "child-ready"))
		return err
	})
	recorded := readPids(t, dir)
	for _, name := range []string{"etcd", "kube-apiserver", "rabbitmq", "epmd", "openbao"} {
		if _, ok := recorded[name]; !ok {
			t.Fatalf("no pid recorded for %s (have %v)", name, recorded)
		}
	}
	for name, pm := range recorded {
		if !isProcOf(pm.pid, pm.match) {
			t.Fatalf("%s (pid %d) is not running before the kill", name, pm.pid)
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
	eventually(t, 30*time.Second, "servers gone after the owner was killed", func() error {
		var alive []string
		for name, pm := range recorded {
			if isProcOf(pm.pid, pm.match) {
				alive = append(alive, fmt.Sprintf("%s(%d)", name, pm.pid))
			}
		}
		if len(alive) > 0 {
			return fmt.Errorf("still running: %s", strings.Join(alive, ", "))
		}
		return nil
	})
}

type pidMatch struct {
	pid   int
	match string
}

func readPids(t *testing.T, dir string) map[string]pidMatch {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "pids"))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]pidMatch{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, "pids", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		pidStr, match, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
		pid, err := strconv.Atoi(pidStr)
		if err != nil {
			t.Fatal(err)
		}
		m[strings.TrimSuffix(e.Name(), ".pid")] = pidMatch{pid, match}
	}
	return m
}

// TestIntegration_OpenBao_RootTokenStaysPrivate: the dev server's root
// token is on no process's command line (/proc/<pid>/cmdline is readable by
// every user of the machine), and the server logs, where the dev server
// prints it, are readable by the stack's user only.
func TestIntegration_OpenBao_RootTokenStaysPrivate(t *testing.T) {
	stack.procsMu.Lock()
	procs := append([]*proc(nil), stack.procs...)
	stack.procsMu.Unlock()
	if len(procs) == 0 {
		t.Fatal("the stack records no processes")
	}
	for _, p := range procs {
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.cmd.Process.Pid))
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if strings.Contains(string(cmdline), stack.OpenBao.Token) {
			t.Errorf("the OpenBao root token is on the command line of %s", p.name)
		}
		fi, err := os.Stat(p.logPath)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("log %s has mode %o, want 0600", p.logPath, fi.Mode().Perm())
		}
	}
	di, err := os.Stat(filepath.Join(stack.Dir, "logs"))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("the logs folder has mode %o, want 0700", di.Mode().Perm())
	}
}
