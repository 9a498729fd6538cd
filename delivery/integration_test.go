//go:build integration

package delivery_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/c5c3/orderhub/delivery/apply"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/delivery/eso"
	"github.com/c5c3/orderhub/delivery/openbao"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// stack is shared by this package's tests: Kubernetes with the garbage
// collector, OpenBao (Vault dev server), ESO, K-ORC and Keystone.
var stack *testenv.Stack

const fieldOwner = "orderhub-delivery-test"

func TestMain(m *testing.M) {
	ctrllog.SetLogger(zap.New(zap.WriteTo(io.Discard)))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	var err error
	stack, err = testenv.Start(ctx, testenv.Options{Kube: true, ControllerManager: true, OpenBao: true, ESO: true,
		KORC: true, Keystone: true, Logf: func(f string, a ...any) { fmt.Printf("testenv: "+f+"\n", a...) }})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the stack:", err)
		os.Exit(1)
	}
	code := stack.RunTests(m, nil)
	_ = stack.Stop()
	os.Exit(code)
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

// eventually waits on cond with testenv.Eventually.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	testenv.Eventually(t, timeout, what, cond)
}

func namespace(t *testing.T, c client.Client, name string) string {
	t.Helper()
	if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	return name
}

func mustCreate(t *testing.T, c client.Client, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := c.Create(context.Background(), o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
	}
}

func baoKV(t *testing.T) *openbao.KV {
	t.Helper()
	bc, err := openbao.NewClient(openbao.Config{Address: stack.OpenBao.Addr, Token: stack.OpenBao.Token})
	if err != nil {
		t.Fatal(err)
	}
	return openbao.NewKV(bc, stack.OpenBao.KVMount)
}

// secretStore creates the token Secret and a SecretStore built by package eso
// in ns, and waits for it to be Ready.
func secretStore(t *testing.T, c client.Client, ns string) string {
	t.Helper()
	ctx := context.Background()
	mustCreate(t, c, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "bao-token", Namespace: ns},
		Data: map[string][]byte{"token": []byte(stack.OpenBao.Token)}})
	ss, err := eso.SecretStore{Name: "openbao", Namespace: ns, Server: stack.OpenBao.Addr, Mount: stack.OpenBao.KVMount,
		TokenSecretName: "bao-token", TokenSecretKey: "token"}.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := eso.Apply(ctx, c, fieldOwner, ss); err != nil {
		t.Fatal(err)
	}
	eventually(t, 2*time.Minute, "SecretStore Ready", func() error {
		got := eso.New(eso.SecretStoreGVK)
		if err := c.Get(ctx, client.ObjectKeyFromObject(ss), got); err != nil {
			return err
		}
		if cond := eso.ReadyCondition(got); !cond.True() {
			return fmt.Errorf("Ready %+v", cond)
		}
		return nil
	})
	return ss.GetName()
}

// consumerDoc renders the consumer clouds.yaml of a service account.
func consumerDoc(t *testing.T, password string) []byte {
	t.Helper()
	k := stack.Keystone
	b, err := cloudsyaml.Render("workflow", cloudsyaml.Password(cloudsyaml.PasswordParams{AuthURL: k.URL,
		Username: "workflow", Password: password, UserDomainName: "Default", ProjectName: "service-workflow",
		ProjectDomainName: "Default", Region: k.Region, Interface: cloudsyaml.InterfacePublic}))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pushSecret builds and applies the PushSecret of the source Secret src to
// path, stamped with the source's content hash.
func pushSecret(t *testing.T, c client.Client, ns, store, src, path string, data map[string][]byte) *unstructured.Unstructured {
	t.Helper()
	ps, err := eso.PushSecret{Name: "workflow-backup", Namespace: ns, StoreName: store, SourceSecretName: src,
		Annotations: map[string]string{eso.AnnotationContentHash: eso.ContentHash(data)},
		Data: []eso.PushData{
			{SecretKey: openbao.PropertyCloudsYAML, RemoteKey: path, Property: openbao.PropertyCloudsYAML},
			{SecretKey: openbao.PropertyPassword, RemoteKey: path, Property: openbao.PropertyPassword},
		}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := eso.Apply(context.Background(), c, fieldOwner, ps); err != nil {
		t.Fatal(err)
	}
	return ps
}

// waitReadyAndCurrent waits until ESO reports Ready=True from a sync of the
// object as it is now, and returns that object.
func waitReadyAndCurrent(t *testing.T, c client.Client, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	got := eso.New(obj.GroupVersionKind())
	eventually(t, 2*time.Minute, obj.GetKind()+" Ready and current", func() error {
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), got); err != nil {
			return err
		}
		if !eso.IsReadyAndCurrent(got) {
			return fmt.Errorf("Ready %+v, synced %q, current %q", eso.ReadyCondition(got),
				eso.SyncedResourceVersion(got), eso.CurrentResourceVersion(got))
		}
		return nil
	})
	return got
}

// repush updates the source Secret and stamps the PushSecret with the new
// content hash, the hub's forced push.
func repush(t *testing.T, c client.Client, ns, src string, ps *unstructured.Unstructured, data map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	var s corev1.Secret
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: src}, &s); err != nil {
		t.Fatal(err)
	}
	s.Data = data
	if err := c.Update(ctx, &s); err != nil {
		t.Fatal(err)
	}
	changed, err := eso.StampAnnotations(ctx, c, eso.PushSecretGVK, client.ObjectKeyFromObject(ps),
		map[string]string{eso.AnnotationContentHash: eso.ContentHash(data)})
	if err != nil || !changed {
		t.Fatalf("stamp the content hash: changed=%v err=%v", changed, err)
	}
}

// A SecretStore and PushSecret built by package eso become Ready, the pushed
// values are in OpenBao at the KeystoneService backup path
// (docs/reference/keystoneservice.md, "Consumer Secret contract") (read with
// package openbao), a changed source is pushed again when the content hash is
// re-stamped, and deleting the PushSecret (deletionPolicy Delete) removes the
// values; DeleteMetadata then removes the path.
func TestIntegration_PushSecretToOpenBao(t *testing.T) {
	ctx := context.Background()
	c := kubeClient(t)
	ns := namespace(t, c, "push")
	store := secretStore(t, c, ns)
	path, err := openbao.ServiceAccountCredentialsPath(ns, "workflow")
	if err != nil {
		t.Fatal(err)
	}
	v1 := map[string][]byte{openbao.PropertyPassword: []byte("password-v1"), openbao.PropertyCloudsYAML: consumerDoc(t, "password-v1")}
	mustCreate(t, c, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "workflow-source", Namespace: ns}, Data: v1})
	ps := pushSecret(t, c, ns, store, "workflow-source", path, v1)
	got := waitReadyAndCurrent(t, c, ps)
	if r := eso.ReadyCondition(got); r.Reason != eso.ReasonPushSecretSynced {
		t.Fatalf("PushSecret Ready reason %q", r.Reason)
	}
	for _, p := range []string{openbao.PropertyPassword, openbao.PropertyCloudsYAML} {
		if !eso.IsPushed(got, "", store, path, p) {
			t.Fatalf("status.syncedPushSecrets lacks %s/%s: %v", path, p, got.Object["status"])
		}
	}
	kv := baoKV(t)
	for p, want := range v1 {
		if ok, err := kv.VerifyProperty(ctx, path, p, string(want)); err != nil || !ok {
			t.Fatalf("OpenBao %s %s: match=%v err=%v", path, p, ok, err)
		}
	}
	doc, _, err := kv.ReadProperty(ctx, path, openbao.PropertyCloudsYAML)
	if err != nil {
		t.Fatal(err)
	}
	if cl, err := cloudsyaml.ParseCloud([]byte(doc), "workflow"); err != nil || cl.AuthInfo.Password != "password-v1" {
		t.Fatalf("pushed clouds.yaml does not parse back: %v", err)
	}
	if managed, err := kv.ManagedByExternalSecrets(ctx, path); err != nil || !managed {
		t.Fatalf("managed-by=external-secrets: %v %v", managed, err)
	}

	// A new generation: re-stamping the content hash makes ESO push it.
	v2 := map[string][]byte{openbao.PropertyPassword: []byte("password-v2"), openbao.PropertyCloudsYAML: consumerDoc(t, "password-v2")}
	repush(t, c, ns, "workflow-source", ps, v2)
	waitReadyAndCurrent(t, c, ps)
	if ok, err := kv.VerifyProperty(ctx, path, openbao.PropertyPassword, "password-v2"); err != nil || !ok {
		t.Fatalf("OpenBao after the forced push: match=%v err=%v", ok, err)
	}

	// Teardown: deletionPolicy Delete removes what the PushSecret pushed.
	del := eso.New(eso.PushSecretGVK)
	del.SetNamespace(ns)
	del.SetName(ps.GetName())
	if err := c.Delete(ctx, del); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	eventually(t, 2*time.Minute, "pushed password removed from OpenBao", func() error {
		_, _, err := kv.ReadProperty(ctx, path, openbao.PropertyPassword)
		if errors.Is(err, openbao.ErrNotFound) || errors.Is(err, openbao.ErrPropertyNotFound) {
			return nil
		}
		return fmt.Errorf("still readable (%v)", err)
	})
	if err := kv.DeleteMetadata(ctx, path); err != nil {
		t.Fatal(err)
	}
	if exists, err := kv.Exists(ctx, path); err != nil || exists {
		t.Fatalf("path after DeleteMetadata: exists=%v err=%v", exists, err)
	}
	if err := kv.DeleteMetadata(ctx, path); err != nil {
		t.Fatalf("deleting a missing path: %v", err)
	}
}

// An ExternalSecret built by package eso delivers <name>-credentials (keys
// clouds.yaml and password, owned by the ExternalSecret); after a new source
// generation is pushed and the force-sync annotation is stamped, the
// delivered Secret changes although the refresh interval (1h) has not passed.
func TestIntegration_ExternalSecretForceSync(t *testing.T) {
	ctx := context.Background()
	c := kubeClient(t)
	ns := namespace(t, c, "pull")
	store := secretStore(t, c, ns)
	path, _ := openbao.ServiceAccountCredentialsPath(ns, "workflow")
	v1 := map[string][]byte{openbao.PropertyPassword: []byte("password-v1"), openbao.PropertyCloudsYAML: consumerDoc(t, "password-v1")}
	mustCreate(t, c, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "workflow-source", Namespace: ns}, Data: v1})
	ps := pushSecret(t, c, ns, store, "workflow-source", path, v1)
	pushed := waitReadyAndCurrent(t, c, ps)

	es, err := eso.ExternalSecret{Name: "workflow-credentials", Namespace: ns, StoreName: store,
		TargetName: "workflow-credentials", RefreshInterval: time.Hour,
		Annotations: map[string]string{eso.AnnotationForceSync: eso.ForceSyncValue(eso.ContentHash(v1), eso.SyncedResourceVersion(pushed))},
		Template:    &eso.Template{Labels: map[string]string{"c5c3.io/keystoneservice-name": "workflow"}},
		Data: []eso.ExternalData{
			{SecretKey: openbao.PropertyCloudsYAML, RemoteKey: path, Property: openbao.PropertyCloudsYAML},
			{SecretKey: openbao.PropertyPassword, RemoteKey: path, Property: openbao.PropertyPassword},
		}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := eso.Apply(ctx, c, fieldOwner, es); err != nil {
		t.Fatal(err)
	}
	got := waitReadyAndCurrent(t, c, es)
	if r := eso.ReadyCondition(got); r.Reason != eso.ReasonSecretSynced {
		t.Fatalf("ExternalSecret Ready reason %q", r.Reason)
	}
	key := types.NamespacedName{Namespace: ns, Name: "workflow-credentials"}
	var delivered corev1.Secret
	if err := c.Get(ctx, key, &delivered); err != nil {
		t.Fatal(err)
	}
	if string(delivered.Data[openbao.PropertyPassword]) != "password-v1" || string(delivered.Data[openbao.PropertyCloudsYAML]) != string(v1[openbao.PropertyCloudsYAML]) {
		t.Fatalf("delivered keys %v do not carry generation 1", keys(delivered.Data))
	}
	if ref := metav1.GetControllerOf(&delivered); ref == nil || ref.Kind != eso.KindExternalSecret || ref.UID != got.GetUID() {
		t.Fatalf("delivered Secret's controller %+v, want the ExternalSecret (creationPolicy Owner)", ref)
	}
	if delivered.Labels["c5c3.io/keystoneservice-name"] != "workflow" {
		t.Fatalf("template label missing: %v", delivered.Labels)
	}

	// Generation 2 reaches OpenBao by a forced push ...
	v2 := map[string][]byte{openbao.PropertyPassword: []byte("password-v2"), openbao.PropertyCloudsYAML: consumerDoc(t, "password-v2")}
	repush(t, c, ns, "workflow-source", ps, v2)
	pushed = waitReadyAndCurrent(t, c, ps)
	// ... but the delivered Secret still holds generation 1: nothing made ESO
	// re-fetch yet (the refresh interval is an hour).
	if err := c.Get(ctx, key, &delivered); err != nil {
		t.Fatal(err)
	}
	if string(delivered.Data[openbao.PropertyPassword]) != "password-v1" {
		t.Fatal("the delivered Secret changed before the force-sync; the test would prove nothing")
	}
	changed, err := eso.StampAnnotations(ctx, c, eso.ExternalSecretGVK, client.ObjectKeyFromObject(es),
		map[string]string{eso.AnnotationForceSync: eso.ForceSyncValue(eso.ContentHash(v2), eso.SyncedResourceVersion(pushed))})
	if err != nil || !changed {
		t.Fatalf("stamp force-sync: changed=%v err=%v", changed, err)
	}
	eventually(t, 2*time.Minute, "delivered Secret carries generation 2", func() error {
		if err := c.Get(ctx, key, &delivered); err != nil {
			return err
		}
		if string(delivered.Data[openbao.PropertyPassword]) != "password-v2" ||
			string(delivered.Data[openbao.PropertyCloudsYAML]) != string(v2[openbao.PropertyCloudsYAML]) {
			return errors.New("still generation 1")
		}
		return nil
	})
	waitReadyAndCurrent(t, c, es)
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Server-side-apply delivery (docs/reference/keystoneapplicationcredential.md,
// "Delivered Secret contract"): a delivered Secret is created with a controller
// reference, an edited key is rewritten, a key somebody else added stays, a
// deleted Secret is written again, and a same-named Secret not owned by the
// deliverer is refused and left as it was.
// TestIntegration_SSADeliveryCreateRaced: another writer changes a Secret
// between Deliver's create and its takeover as an apply manager (K-ORC adds
// its finalizer to a clouds.yaml document an object of its already names):
// the takeover is retried at the current version, so the Secret is ours and
// the next Deliver applies over it instead of refusing it as not ours.
func TestIntegration_SSADeliveryCreateRaced(t *testing.T) {
	real := kubeClient(t)
	ctx := context.Background()
	ns := "ssa-raced"
	if err := real.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	ww, err := client.NewWithWatch(stack.Kube.Config, client.Options{Scheme: real.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	raced := false
	c := interceptor.NewClient(ww, interceptor.Funcs{
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			if !raced {
				raced = true
				var s corev1.Secret
				if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "doc"}, &s); err != nil {
					return err
				}
				s.Finalizers = append(s.Finalizers, "example.com/raced")
				if err := c.Update(ctx, &s); err != nil {
					return err
				}
			}
			return c.Apply(ctx, obj, opts...)
		}})
	const fieldOwner = "orderhub-test"
	d := apply.Secret{Namespace: ns, Name: "doc", Data: map[string][]byte{"clouds.yaml": []byte("v1")}}
	if res, err := apply.Deliver(ctx, c, fieldOwner, d); err != nil || res != apply.Created {
		t.Fatalf("the create raced by a finalizer write: %q, %v; want Created", res, err)
	}
	if !raced {
		t.Fatal("the concurrent write was not staged")
	}
	d.Data = map[string][]byte{"clouds.yaml": []byte("v2")}
	if res, err := apply.Deliver(ctx, c, fieldOwner, d); err != nil || res != apply.Applied {
		t.Fatalf("the next delivery: %q, %v; want Applied (the Secret is ours)", res, err)
	}
	var got corev1.Secret
	if err := real.Get(ctx, types.NamespacedName{Namespace: ns, Name: "doc"}, &got); err != nil {
		t.Fatal(err)
	}
	if string(got.Data["clouds.yaml"]) != "v2" || len(got.Finalizers) != 1 {
		t.Fatalf("data %q finalizers %v; want v2 and the other writer's finalizer kept", got.Data["clouds.yaml"], got.Finalizers)
	}
	got.Finalizers = nil
	if err := real.Update(ctx, &got); err != nil {
		t.Fatal(err)
	}
}

func TestIntegration_SSADelivery(t *testing.T) {
	ctx := context.Background()
	c := kubeClient(t)
	ns := namespace(t, c, "ssa")
	order := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "appcred", Namespace: ns}}
	mustCreate(t, c, order)
	owner := &metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: order.Name, UID: order.UID}
	doc, err := cloudsyaml.Render("openstack", cloudsyaml.ApplicationCredential(cloudsyaml.ApplicationCredentialParams{
		AuthURL: stack.Keystone.URL, ID: "ac-id-1", Secret: "ac-secret-1", Region: "RegionOne", Interface: "public"}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{cloudsyaml.Key: doc, openbao.PropertyApplicationCredentialID: []byte("ac-id-1"),
		openbao.PropertyApplicationCredentialSecret: []byte("ac-secret-1")}
	d := apply.Secret{Namespace: ns, Name: "appcred-credentials", Data: want, Owner: owner,
		Labels:      map[string]string{"c5c3.io/keystoneapplicationcredential-name": "appcred"},
		Annotations: map[string]string{"c5c3.io/credential-generation": "1"}}
	key := types.NamespacedName{Namespace: ns, Name: d.Name}
	read := func() *corev1.Secret {
		var s corev1.Secret
		if err := c.Get(ctx, key, &s); err != nil {
			t.Fatal(err)
		}
		return &s
	}
	checkOurs := func(s *corev1.Secret) {
		t.Helper()
		for k, v := range want {
			if string(s.Data[k]) != string(v) {
				t.Fatalf("key %s not as delivered", k)
			}
		}
		if ref := metav1.GetControllerOf(s); ref == nil || ref.UID != order.UID {
			t.Fatalf("controller reference %+v", ref)
		}
		if s.Annotations["c5c3.io/credential-generation"] != "1" {
			t.Fatalf("annotations %v, want the delivered ones", s.Annotations)
		}
	}

	if res, err := apply.Deliver(ctx, c, fieldOwner, d); err != nil || res != apply.Created {
		t.Fatalf("first delivery: %v %v", res, err)
	}
	s := read()
	checkOurs(s)
	if s.Labels["c5c3.io/keystoneapplicationcredential-name"] != "appcred" || !apply.Owned(s, owner, fieldOwner) {
		t.Fatalf("labels %v / not owned", s.Labels)
	}

	// Somebody edits one of our keys and adds one of their own.
	s.Data[openbao.PropertyApplicationCredentialSecret] = []byte("tampered")
	s.Data["foreign"] = []byte("theirs")
	if err := c.Update(ctx, s, client.FieldOwner("someone-else")); err != nil {
		t.Fatal(err)
	}
	if res, err := apply.Deliver(ctx, c, fieldOwner, d); err != nil || res != apply.Applied {
		t.Fatalf("repair: %v %v", res, err)
	}
	s = read()
	checkOurs(s)
	if string(s.Data["foreign"]) != "theirs" {
		t.Fatalf("foreign key lost: %v", keys(s.Data))
	}
	// A repeated delivery changes nothing.
	rv := s.ResourceVersion
	if _, err := apply.Deliver(ctx, c, fieldOwner, d); err != nil {
		t.Fatal(err)
	}
	if read().ResourceVersion != rv {
		t.Fatal("an unchanged delivery wrote the Secret")
	}

	// Deleted: written again.
	if err := c.Delete(ctx, s); err != nil {
		t.Fatal(err)
	}
	if res, err := apply.Deliver(ctx, c, fieldOwner, d); err != nil || res != apply.Created {
		t.Fatalf("re-create: %v %v", res, err)
	}
	checkOurs(read())

	// A same-named Secret of somebody else: refused, untouched.
	mustCreate(t, c, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "taken-credentials", Namespace: ns},
		Data: map[string][]byte{"theirs": []byte("x")}})
	other := d
	other.Name = "taken-credentials"
	for _, o := range []*metav1.OwnerReference{owner, nil} {
		other.Owner = o
		_, err := apply.Deliver(ctx, c, fieldOwner, other)
		if !apply.IsNotOwned(err) {
			t.Fatalf("owner %v: want a NotOwnedError, got %v", o, err)
		}
	}
	var taken corev1.Secret
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "taken-credentials"}, &taken); err != nil {
		t.Fatal(err)
	}
	if len(taken.Data) != 1 || string(taken.Data["theirs"]) != "x" || len(taken.OwnerReferences) != 0 {
		t.Fatalf("refused Secret changed: keys %v, owners %v", keys(taken.Data), taken.OwnerReferences)
	}

	// Without an owner, ownership is the field manager's apply entry: a Secret
	// delivered that way is recognised as ours on the next delivery, which
	// leaves it alone while it holds what is delivered and applies a change.
	free := apply.Secret{Namespace: ns, Name: "free-credentials", Data: want}
	if res, err := apply.Deliver(ctx, c, fieldOwner, free); err != nil || res != apply.Created {
		t.Fatalf("ownerless create: %v %v", res, err)
	}
	if res, err := apply.Deliver(ctx, c, fieldOwner, free); err != nil || res != apply.Unchanged {
		t.Fatalf("ownerless re-delivery: %v %v", res, err)
	}
	changed := free
	changed.Data = map[string][]byte{}
	for k, v := range want {
		changed.Data[k] = append([]byte("new-"), v...)
	}
	if res, err := apply.Deliver(ctx, c, fieldOwner, changed); err != nil || res != apply.Applied {
		t.Fatalf("ownerless re-apply of new values: %v %v", res, err)
	}
	// A key the delivery no longer carries is removed by the apply: the
	// Secret holds more than is delivered, so the apply is sent.
	fewer := changed
	fewer.Data = map[string][]byte{cloudsyaml.Key: changed.Data[cloudsyaml.Key]}
	if res, err := apply.Deliver(ctx, c, fieldOwner, fewer); err != nil || res != apply.Applied {
		t.Fatalf("ownerless delivery of fewer keys: %v %v", res, err)
	}
	var pruned corev1.Secret
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: free.Name}, &pruned); err != nil {
		t.Fatal(err)
	}
	if len(pruned.Data) != 1 || string(pruned.Data[cloudsyaml.Key]) != string(changed.Data[cloudsyaml.Key]) {
		t.Fatalf("after delivering one key the Secret holds %v", keys(pruned.Data))
	}
	if _, err := apply.Deliver(ctx, c, "another-owner", free); !apply.IsNotOwned(err) {
		t.Fatalf("another field owner: want NotOwnedError, got %v", err)
	}
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

// adminCloud writes the admin clouds.yaml, rendered by package cloudsyaml, as
// the K-ORC credentials Secret of ns: K-ORC authenticates with our document.
func adminCloud(t *testing.T, c client.Client, ns string) orcv1alpha1.CloudCredentialsReference {
	t.Helper()
	k := stack.Keystone
	doc, err := cloudsyaml.Render("admin", cloudsyaml.Password(cloudsyaml.PasswordParams{AuthURL: k.URL,
		Username: k.AdminUser, Password: k.AdminPassword, UserDomainName: k.AdminUserDomain, ProjectName: k.AdminProject,
		ProjectDomainName: k.AdminProjectDomain, Region: k.Region, Interface: cloudsyaml.InterfacePublic}))
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, c, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "k-orc-clouds-yaml", Namespace: ns},
		Data: map[string][]byte{cloudsyaml.Key: doc}})
	return orcv1alpha1.CloudCredentialsReference{SecretName: "k-orc-clouds-yaml", CloudName: "admin"}
}

func waitProbe(t *testing.T, c client.Client, probe *orcv1alpha1.Service) korc.ProbeResult {
	t.Helper()
	var r korc.ProbeResult
	eventually(t, 2*time.Minute, "probe "+probe.Name+" resolved", func() error {
		var got orcv1alpha1.Service
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(probe), &got); err != nil {
			return err
		}
		r = korc.Probe(&got)
		if r.Outcome == korc.ProbePending {
			return fmt.Errorf("pending: %s %s", r.Reason, r.Message)
		}
		return nil
	})
	return r
}

// The collision probe (a short-lived unmanaged K-ORC import built by package
// korc) reads an absent service as Absent, an existing one as Found with its
// Keystone id, and an ambiguous one (two rows of the same type and name,
// which Keystone allows) as Error. A managed Service built by package korc
// becomes Available with the id Keystone holds.
func TestIntegration_KORCProbe(t *testing.T) {
	ctx := context.Background()
	c := kubeClient(t)
	ns := namespace(t, c, "korc-probe")
	creds := adminCloud(t, c, ns)
	ks := keystoneAdmin(t, ctx)
	child := func(name string) korc.Child {
		return korc.Child{Name: name, Namespace: ns, Credentials: creds, Labels: map[string]string{"test": "probe"}}
	}

	absent := korc.ServiceProbe(child("absent-probe"), "orderhub-absent", "absent")
	existing, err := services.Create(ctx, ks, services.CreateOpts{Type: "orderhub-existing", Name: "existing"}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	found := korc.ServiceProbe(child("existing-probe"), "orderhub-existing", "existing")
	for i := 0; i < 2; i++ {
		if _, err := services.Create(ctx, ks, services.CreateOpts{Type: "orderhub-twice", Name: "twice"}).Extract(); err != nil {
			t.Fatal(err)
		}
	}
	ambiguous := korc.ServiceProbe(child("twice-probe"), "orderhub-twice", "twice")
	mustCreate(t, c, absent, found, ambiguous)

	if r := waitProbe(t, c, absent); r.Outcome != korc.ProbeAbsent {
		t.Errorf("absent service: %+v", r)
	}
	if r := waitProbe(t, c, found); r.Outcome != korc.ProbeFound || r.ID != existing.ID {
		t.Errorf("existing service %s: %+v", existing.ID, r)
	}
	if r := waitProbe(t, c, ambiguous); r.Outcome != korc.ProbeError || r.Message == "" {
		t.Errorf("ambiguous service: %+v", r)
	}

	// A managed Service: Available, and its status.id is the Keystone row.
	svc := korc.ManagedService(child("managed-service"), orcv1alpha1.ServiceResourceSpec{Type: "orderhub-managed",
		Name: ptr.To(orcv1alpha1.OpenStackName("managed"))})
	mustCreate(t, c, svc)
	var st korc.State
	eventually(t, 2*time.Minute, "managed Service Available", func() error {
		var got orcv1alpha1.Service
		if err := c.Get(ctx, client.ObjectKeyFromObject(svc), &got); err != nil {
			return err
		}
		if st = korc.StateOf(&got); st.Phase != korc.PhaseAvailable {
			return fmt.Errorf("%+v", st)
		}
		return nil
	})
	row, err := services.Get(ctx, ks, st.ID).Extract()
	if err != nil || row.Type != "orderhub-managed" {
		t.Fatalf("Keystone row %s: %+v %v", st.ID, row, err)
	}
}

// A managed User built by package korc with a passwordRef reports that
// Secret in status.resource.appliedPasswordRef, and the password works.
func TestIntegration_KORCUserAppliedPassword(t *testing.T) {
	ctx := context.Background()
	c := kubeClient(t)
	ns := namespace(t, c, "korc-user")
	creds := adminCloud(t, c, ns)
	mustCreate(t, c, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "svc-user-password-v1", Namespace: ns},
		Data: map[string][]byte{"password": []byte("user-password-v1")}})
	dom := korc.DomainImportByName(korc.Child{Name: "domain-default", Namespace: ns, Credentials: creds}, "Default")
	u := korc.ManagedUser(korc.Child{Name: "svc-user", Namespace: ns, Credentials: creds}, orcv1alpha1.UserResourceSpec{
		Name:        ptr.To(orcv1alpha1.OpenStackName("orderhub-svc-user")),
		DomainRef:   ptr.To(orcv1alpha1.KubernetesNameRef("domain-default")),
		PasswordRef: ptr.To(orcv1alpha1.KubernetesNameRef("svc-user-password-v1"))})
	mustCreate(t, c, dom, u)
	eventually(t, 2*time.Minute, "User Available with the password applied", func() error {
		var got orcv1alpha1.User
		if err := c.Get(ctx, client.ObjectKeyFromObject(u), &got); err != nil {
			return err
		}
		if st := korc.StateOf(&got); st.Phase != korc.PhaseAvailable || !korc.PasswordApplied(&got, "svc-user-password-v1") {
			return fmt.Errorf("%+v applied=%q", st, korc.AppliedPasswordRef(&got))
		}
		return nil
	})
	if _, err := openstack.AuthenticatedClient(ctx, gophercloud.AuthOptions{IdentityEndpoint: stack.Keystone.URL,
		Username: "orderhub-svc-user", Password: "user-password-v1", DomainName: "Default"}); err != nil {
		t.Fatalf("authenticate with the applied password: %v", err)
	}
}
