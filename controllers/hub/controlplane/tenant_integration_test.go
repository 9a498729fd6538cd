//go:build integration

package controlplane

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	bao "github.com/openbao/openbao/api/v2"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/eso"
	"github.com/c5c3/orderhub/delivery/openbao"
	"github.com/c5c3/orderhub/internal/testenv"
)

// The tenant isolation tests (docs/reference/openbao.md): the plane's
// stores log in with OpenBao's Kubernetes auth, and the tenant policy keeps
// each namespace to its own openstack/keystone/<namespace>/ leaves.

// permissionDenied is what the OpenBao-compatible server answers a request
// its policy refuses (HTTP 403, "permission denied"), as ESO reports it.
const permissionDenied = "permission denied"

// backupPath is a KeystoneService backup leaf of namespace ns.
func backupPath(t *testing.T, ns, name string) string {
	t.Helper()
	p, err := openbao.ServiceAccountCredentialsPath(ns, name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitStoreReady waits until SecretStore ns/name is Ready.
func waitStoreReady(t *testing.T, ns, name string) *unstructured.Unstructured {
	t.Helper()
	u := eso.New(eso.SecretStoreGVK)
	eventually(t, waitTimeout, "SecretStore "+ns+"/"+name+" Ready", func() error {
		if err := kube.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, u); err != nil {
			return err
		}
		if c := eso.ReadyCondition(u); !c.True() {
			return fmt.Errorf("Ready is %+v", c)
		}
		return nil
	})
	return u
}

// waitGone waits until o (a typed or unstructured object with its key set)
// is NotFound.
func waitGone(t *testing.T, what string, o client.Object) {
	t.Helper()
	eventually(t, waitTimeout, what+" deleted", func() error {
		err := kube.Get(context.Background(), client.ObjectKeyFromObject(o), o)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (err %v)", err)
	})
}

// pushOwn pushes value as property password to path through store in ns,
// from a Secret it creates (as the cluster admin), and waits until ESO
// reports the push.
func pushOwn(t *testing.T, ns, store, path, value string) {
	t.Helper()
	ctx := context.Background()
	src := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "own-source"},
		Data: map[string][]byte{"password": []byte(value)}}
	if err := kube.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	u, err := eso.PushSecret{Name: "own-push", Namespace: ns, StoreName: store, SourceSecretName: src.Name,
		Data: []eso.PushData{{SecretKey: "password", RemoteKey: path, Property: "password"}}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := kube.Create(ctx, u); err != nil {
		t.Fatal(err)
	}
	eventually(t, waitTimeout, "own push in "+ns, func() error {
		if err := kube.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
			return err
		}
		if !eso.IsPushed(u, eso.KindSecretStore, store, path, "password") {
			return fmt.Errorf("not pushed: %+v", eso.ReadyCondition(u))
		}
		return nil
	})
}

// externalSecret builds an ExternalSecret in ns reading property password
// of path through store into Secret target.
func externalSecret(t *testing.T, ns, name, store, path, target string) *unstructured.Unstructured {
	t.Helper()
	u, err := eso.ExternalSecret{Name: name, Namespace: ns, StoreName: store, TargetName: target,
		Data: []eso.ExternalData{{SecretKey: "password", RemoteKey: path, Property: "password"}}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// waitDelivered waits until Secret ns/name holds password value.
func waitDelivered(t *testing.T, ns, name, value string) {
	t.Helper()
	eventually(t, waitTimeout, "Secret "+ns+"/"+name+" delivered", func() error {
		var s corev1.Secret
		if err := kube.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, &s); err != nil {
			return err
		}
		if string(s.Data["password"]) != value {
			return errors.New("password differs")
		}
		return nil
	})
}

// eventMessages are the messages of every event about ns/name.
func eventMessages(ctx context.Context, ns, name string) ([]string, error) {
	var out []string
	var core corev1.EventList
	if err := kube.List(ctx, &core, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	for _, e := range core.Items {
		if e.InvolvedObject.Name == name {
			out = append(out, e.Message)
		}
	}
	var events eventsv1.EventList
	if err := kube.List(ctx, &events, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	for _, e := range events.Items {
		if e.Regarding.Name == name {
			out = append(out, e.Note)
		}
	}
	return out, nil
}

// waitRefused waits until ESO has processed the object u (re-read) and
// reported Ready=False, with want in its condition message or one of its
// events, and returns that text.
func waitRefused(t *testing.T, u *unstructured.Unstructured, want string) string {
	t.Helper()
	ctx := context.Background()
	var said string
	eventually(t, waitTimeout, fmt.Sprintf("%s %s/%s refused with %q", u.GetKind(), u.GetNamespace(), u.GetName(), want), func() error {
		if err := kube.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
			return err
		}
		c := eso.ReadyCondition(u)
		if !c.Found || c.Status != string(metav1.ConditionFalse) {
			return fmt.Errorf("Ready is %+v", c)
		}
		msgs, err := eventMessages(ctx, u.GetNamespace(), u.GetName())
		if err != nil {
			return err
		}
		for _, m := range append([]string{c.Message}, msgs...) {
			if strings.Contains(m, want) {
				said = m
				return nil
			}
		}
		return fmt.Errorf("condition %+v, events %q", c, msgs)
	})
	return said
}

// tenantClient returns a client acting as user tenant-<ns>, who may read
// Secrets and create ExternalSecrets, SecretStores and PushSecrets in ns
// and nothing anywhere else (a Role bound in ns; the stack's admin
// impersonates the user).
func tenantClient(t *testing.T, ns string) client.Client {
	t.Helper()
	ctx := context.Background()
	user := "tenant-" + ns
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tenant"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{eso.Group}, Resources: []string{"externalsecrets", "secretstores", "pushsecrets"},
			Verbs: []string{"get", "list", "watch", "create"}},
	}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tenant"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}}}
	for _, o := range []client.Object{role, binding} {
		if err := kube.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	cfg := rest.CopyConfig(stack.Kube.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	c, err := client.New(cfg, client.Options{Scheme: kube.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// tenant is one side of the isolation test.
type tenant struct {
	ns string
	c  client.Client
	// path is the namespace's own backup leaf and value what it holds.
	path, value string
}

// TestIntegration_TenantIsolation: a plane consents to two tenant
// namespaces. Each namespace's hub store logs in with Kubernetes auth and
// reaches its own leaf (push and read back). Each tenant, with an identity
// limited to its own namespace, then tries the four attacks on the other's
// leaf; each gets a permission error from the OpenBao-compatible server (or
// ESO reporting it), and nothing is materialized or changed. No Secret in
// the cluster holds an OpenBao token.
func TestIntegration_TenantIsolation(t *testing.T) {
	ks := stack.Keystone
	ctx := context.Background()
	cp := newPlane(t, "iso-plane", ks.URL, ks.AdminPassword, "iso-a", "iso-b")
	waitForReason(t, cp, c5c3v1alpha1.ReasonAdminCredentialReady)
	root, err := stack.KV()
	if err != nil {
		t.Fatal(err)
	}

	tenants := map[string]*tenant{}
	for _, ns := range []string{"iso-a", "iso-b"} {
		// The hub's store: Kubernetes auth as the plane's ServiceAccount,
		// no token Secret.
		u := waitStoreReady(t, ns, DefaultTenantStoreName)
		auth, _, _ := unstructured.NestedMap(u.Object, "spec", "provider", "vault", "auth")
		k, _ := auth["kubernetes"].(map[string]any)
		if _, token := auth["tokenSecretRef"]; token || k == nil || k["role"] != stack.OpenBao.Role ||
			k["mountPath"] != stack.OpenBao.AuthMount {
			t.Fatalf("store %s auth %v", ns, auth)
		}
		var sa corev1.ServiceAccount
		if err := kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: stack.OpenBao.ServiceAccount}, &sa); err != nil {
			t.Fatalf("ServiceAccount in %s: %v", ns, err)
		}
		writtenFor(t, &sa, cp.Name, "")
		// The consented path: push to the own leaf, read it back.
		tn := &tenant{ns: ns, path: backupPath(t, ns, "svc"), value: "value-of-" + ns}
		pushOwn(t, ns, DefaultTenantStoreName, tn.path, tn.value)
		if got, _, err := root.ReadProperty(ctx, tn.path, "password"); err != nil || got != tn.value {
			t.Fatalf("own push of %s: %v", ns, err)
		}
		mustCreate(t, externalSecret(t, ns, "own-read", DefaultTenantStoreName, tn.path, "own-read"))
		waitDelivered(t, ns, "own-read", tn.value)
		tn.c = tenantClient(t, ns)
		tenants[ns] = tn
	}
	// The identities are confined to their namespaces.
	var s corev1.Secret
	if err := tenants["iso-a"].c.Get(ctx, types.NamespacedName{Namespace: "iso-b", Name: "own-read"}, &s); !apierrors.IsForbidden(err) {
		t.Fatalf("tenant-iso-a reading a Secret of iso-b: %v, want Forbidden", err)
	}

	for _, pair := range [][2]string{{"iso-a", "iso-b"}, {"iso-b", "iso-a"}} {
		from, to := tenants[pair[0]], tenants[pair[1]]
		t.Run(from.ns+"->"+to.ns, func(t *testing.T) {
			before, _, err := root.ReadProperty(ctx, to.path, "password")
			if err != nil || before != to.value {
				t.Fatalf("victim leaf before: %v", err)
			}
			attackWithOwnSecrets(t, from, to)
			attackExternalSecret(t, from, to, "attack-es", DefaultTenantStoreName)
			attackOwnStore(t, from, to)
			attackPushSecret(t, from, to)
			s, err := root.Read(ctx, to.path)
			if err != nil || s.Data["password"] != to.value || len(s.Data) != 1 {
				t.Fatalf("victim leaf changed: %v", err)
			}
		})
	}

	found, err := stack.SecretsHoldingCredentials(ctx, kube)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Fatalf("Secrets holding OpenBao tokens or JWTs:\n%s", strings.Join(found, "\n"))
	}
}

// attackWithOwnSecrets: every value of every Secret the tenant can read in
// its own namespace, used as an OpenBao token on the victim's leaf, gets
// 403 (a value that cannot be sent as a token header is counted as such).
func attackWithOwnSecrets(t *testing.T, from, to *tenant) {
	t.Helper()
	ctx := context.Background()
	var list corev1.SecretList
	if err := from.c.List(ctx, &list, client.InNamespace(from.ns)); err != nil {
		t.Fatal(err)
	}
	tried := 0
	for _, sec := range list.Items {
		for key, v := range sec.Data {
			token := strings.TrimSpace(string(v))
			if token == "" || strings.ContainsAny(token, "\r\n\x00") {
				continue // not sendable as X-Vault-Token
			}
			c, err := openbao.NewClient(openbao.Config{Address: stack.OpenBao.Addr, Token: token})
			if err != nil {
				t.Fatal(err)
			}
			_, err = openbao.NewKV(c, stack.OpenBao.KVMount).Read(ctx, to.path)
			var re *bao.ResponseError
			if !errors.As(err, &re) || re.StatusCode != 403 {
				t.Errorf("Secret %s/%s key %s as a token on %s: %v, want 403", from.ns, sec.Name, key, to.path, err)
			}
			tried++
		}
	}
	if tried == 0 {
		t.Fatalf("no Secret value in %s to try", from.ns)
	}
	t.Logf("attack 1 (%s's %d Secret values as tokens on %s): 403 permission denied each", from.ns, tried, to.path)
}

// attackExternalSecret: an ExternalSecret of the tenant's making, through
// store in its namespace, names the victim's key: ESO reports OpenBao's
// permission denied and writes no Secret.
func attackExternalSecret(t *testing.T, from, to *tenant, name, store string) {
	t.Helper()
	u := externalSecret(t, from.ns, name, store, to.path, name)
	if err := from.c.Create(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	said := waitRefused(t, u, permissionDenied)
	notMaterialized(t, from.ns, name)
	t.Logf("ExternalSecret %s/%s via %s on %s: %s", from.ns, name, store, to.path, excerpt(said, permissionDenied))
}

// attackOwnStore: a SecretStore of the tenant's making, logging in to
// OpenBao as the namespace's ServiceAccount, becomes Ready (it is the
// namespace's own identity), and an ExternalSecret through it on the
// victim's key is refused like attack 2.
func attackOwnStore(t *testing.T, from, to *tenant) {
	t.Helper()
	u, err := eso.SecretStore{Name: "own-store", Namespace: from.ns, Server: stack.OpenBao.Addr, Mount: stack.OpenBao.KVMount,
		Kubernetes: &eso.KubernetesAuth{MountPath: stack.OpenBao.AuthMount, Role: stack.OpenBao.Role,
			ServiceAccount: stack.OpenBao.ServiceAccount}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := from.c.Create(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	waitStoreReady(t, from.ns, "own-store")
	attackExternalSecret(t, from, to, "attack-own-store", "own-store")
}

// attackPushSecret: a PushSecret of the tenant's making, through its
// namespace's hub store, writes its own Secret into the victim's leaf: ESO
// reports OpenBao's permission denied and the leaf is unchanged (checked by
// the caller).
func attackPushSecret(t *testing.T, from, to *tenant) {
	t.Helper()
	u, err := eso.PushSecret{Name: "attack-push", Namespace: from.ns, StoreName: DefaultTenantStoreName,
		SourceSecretName: "own-read", Data: []eso.PushData{{SecretKey: "password", RemoteKey: to.path, Property: "password"}}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	// The attacker need not ask ESO to delete what it pushed; None keeps the
	// test's namespaces deletable.
	if err := unstructured.SetNestedField(u.Object, "None", "spec", "deletionPolicy"); err != nil {
		t.Fatal(err)
	}
	if err := from.c.Create(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	said := waitRefused(t, u, permissionDenied)
	t.Logf("PushSecret %s/attack-push into %s: %s", from.ns, to.path, excerpt(said, permissionDenied))
}

// notMaterialized fails unless Secret ns/name does not exist.
func notMaterialized(t *testing.T, ns, name string) {
	t.Helper()
	var s corev1.Secret
	if err := kube.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, &s); !apierrors.IsNotFound(err) {
		t.Errorf("Secret %s/%s: %v, want NotFound", ns, name, err)
	}
}

// excerpt is s on one line, cut to the part that ends with want (or its
// start when want is empty or absent).
func excerpt(s, want string) string {
	s = strings.Join(strings.Fields(s), " ")
	i := strings.Index(s, want)
	if want == "" || i < 0 {
		if len(s) > 240 {
			return s[:240] + "..."
		}
		return s
	}
	start := max(0, i-200)
	return "..." + s[start:i+len(want)]
}

func mustCreate(t *testing.T, o client.Object) {
	t.Helper()
	if err := kube.Create(context.Background(), o); err != nil {
		t.Fatal(err)
	}
}

// setAllowed replaces the plane's allowedNamespaces.
func setAllowed(t *testing.T, cp *c5c3v1alpha1.ControlPlane, allowed ...string) {
	t.Helper()
	ctx := context.Background()
	var got c5c3v1alpha1.ControlPlane
	if err := kube.Get(ctx, client.ObjectKeyFromObject(cp), &got); err != nil {
		t.Fatal(err)
	}
	base := got.DeepCopy()
	got.Spec.KORC.ServiceRegistrations.AllowedNamespaces = allowed
	if err := kube.Patch(ctx, &got, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
}

// TestIntegration_TenantDelisting: de-listing a namespace from
// allowedNamespaces removes its store and ServiceAccount, so it can no
// longer reach OpenBao; the Secret already delivered there stays. A
// KeystoneService teardown there brings them back until it ends. Re-listing
// restores the store as it was (same role, same ServiceAccount name, same
// leaf: no new credential), and reads work again.
func TestIntegration_TenantDelisting(t *testing.T) {
	ctx := context.Background()
	const ns = "dl-a"
	cp := newPlane(t, "dl-plane", stack.Keystone.URL, stack.Keystone.AdminPassword, ns)
	waitForReason(t, cp, c5c3v1alpha1.ReasonAdminCredentialReady)
	waitStoreReady(t, ns, DefaultTenantStoreName)
	path := backupPath(t, ns, "svc")
	pushOwn(t, ns, DefaultTenantStoreName, path, "delivered-before")
	mustCreate(t, externalSecret(t, ns, "delivered", DefaultTenantStoreName, path, "delivered"))
	waitDelivered(t, ns, "delivered", "delivered-before")

	setAllowed(t, cp)
	store := eso.New(eso.SecretStoreGVK)
	store.SetNamespace(ns)
	store.SetName(DefaultTenantStoreName)
	waitGone(t, "the de-listed namespace's SecretStore", store)
	waitGone(t, "the de-listed namespace's ServiceAccount",
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: stack.OpenBao.ServiceAccount}})
	// The plane namespace keeps its store.
	waitStoreReady(t, cp.Namespace, DefaultTenantStoreName)
	// The delivered Secret stays and keeps its value.
	waitDelivered(t, ns, "delivered", "delivered-before")
	// A store made in the namespace with the hub's ServiceAccount name
	// cannot log in: the ServiceAccount is gone.
	own, err := eso.SecretStore{Name: "after-delisting", Namespace: ns, Server: stack.OpenBao.Addr, Mount: stack.OpenBao.KVMount,
		Kubernetes: &eso.KubernetesAuth{MountPath: stack.OpenBao.AuthMount, Role: stack.OpenBao.Role,
			ServiceAccount: stack.OpenBao.ServiceAccount}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, own)
	said := waitRefused(t, own, "not found")
	t.Logf("de-listed: SecretStore %s/after-delisting: %s", ns, excerpt(said, ""))
	read := externalSecret(t, ns, "read-after-delisting", "after-delisting", path, "read-after-delisting")
	mustCreate(t, read)
	waitRefused(t, read, "")
	notMaterialized(t, ns, "read-after-delisting")

	// A KeystoneService of the plane there being deleted (its teardown
	// finalizer held; no KeystoneService reconciler runs in this suite)
	// brings the store back until the teardown ends: its PushSecret can only
	// remove the backup through it.
	ks := &c5c3v1alpha1.KeystoneService{ObjectMeta: metav1.ObjectMeta{Name: "leaving", Namespace: ns,
		Finalizers: []string{c5c3v1alpha1.FinalizerKeystoneServiceTeardown}},
		Spec: c5c3v1alpha1.KeystoneServiceSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: cp.Name, Namespace: cp.Namespace},
			Account: &c5c3v1alpha1.KeystoneServiceAccountSpec{Project: c5c3v1alpha1.ServiceAccountProjectSpec{Name: "leaving"}}}}
	mustCreate(t, ks)
	if err := kube.Delete(ctx, ks); err != nil {
		t.Fatal(err)
	}
	waitStoreReady(t, ns, DefaultTenantStoreName)
	var sa corev1.ServiceAccount
	if err := kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: stack.OpenBao.ServiceAccount}, &sa); err != nil {
		t.Fatalf("ServiceAccount during the teardown: %v", err)
	}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(ks), ks); err != nil {
		t.Fatal(err)
	}
	base := ks.DeepCopy()
	ks.Finalizers = nil
	if err := kube.Patch(ctx, ks, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	waitGone(t, "the store after the teardown", store)
	waitGone(t, "the ServiceAccount after the teardown",
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: stack.OpenBao.ServiceAccount}})

	// Re-listing: the hub's store returns, Ready with the same auth, and a
	// read of the namespace's leaf works again.
	setAllowed(t, cp, ns)
	u := waitStoreReady(t, ns, DefaultTenantStoreName)
	role, _, _ := unstructured.NestedString(u.Object, "spec", "provider", "vault", "auth", "kubernetes", "role")
	if role != stack.OpenBao.Role {
		t.Errorf("re-listed store role %q", role)
	}
	mustCreate(t, externalSecret(t, ns, "read-after-relisting", DefaultTenantStoreName, path, "read-after-relisting"))
	waitDelivered(t, ns, "read-after-relisting", "delivered-before")
	waitDelivered(t, ns, "delivered", "delivered-before")
}

// TestIntegration_TokenCopiesRemovedOnUpgrade: the token copies and
// token-auth stores an older release wrote (labelled for the plane) are
// replaced: the copies are deleted, the store logs in with Kubernetes auth.
func TestIntegration_TokenCopiesRemovedOnUpgrade(t *testing.T) {
	ks := stack.Keystone
	ctx := context.Background()
	const planeNS, tenantNS = "up-plane", "up-a"
	labels := map[string]string{LabelManagedBy: LabelManagedByValue, LabelControlPlane: "cp", LabelControlPlaneNamespace: planeNS}
	tokenCopy := DefaultTenantStoreName + LegacyTokenSuffix
	for _, ns := range []string{planeNS, tenantNS} {
		mustCreate(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		mustCreate(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: tokenCopy, Labels: labels},
			Data: map[string][]byte{"token": []byte(stack.OpenBao.Token)}})
		old, err := eso.SecretStore{Name: DefaultTenantStoreName, Namespace: ns, Labels: labels, Server: stack.OpenBao.Addr,
			Mount: stack.OpenBao.KVMount, TokenSecretName: tokenCopy, TokenSecretKey: "token"}.Build()
		if err != nil {
			t.Fatal(err)
		}
		// Written as the old release did: server-side apply under the
		// reconciler's field owner.
		if err := eso.Apply(ctx, kube, ControllerName, old); err != nil {
			t.Fatal(err)
		}
	}
	mustCreate(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: DefaultPasswordSecret, Namespace: planeNS},
		Data: map[string][]byte{DefaultPasswordKey: []byte(ks.AdminPassword)}})
	cp := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: planeNS},
		Spec: c5c3v1alpha1.ControlPlaneSpec{
			Services: c5c3v1alpha1.ServicesSpec{Keystone: &c5c3v1alpha1.ServiceKeystoneSpec{
				Mode: c5c3v1alpha1.KeystoneModeExternal, External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: ks.URL}}},
			KORC: c5c3v1alpha1.KORCSpec{ServiceRegistrations: c5c3v1alpha1.ServiceRegistrationsSpec{AllowedNamespaces: []string{tenantNS}}},
		}}
	mustCreate(t, cp)
	waitForReason(t, cp, c5c3v1alpha1.ReasonAdminCredentialReady)
	for _, ns := range []string{planeNS, tenantNS} {
		waitGone(t, "token copy in "+ns, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: tokenCopy}})
		u := waitStoreReady(t, ns, DefaultTenantStoreName)
		auth, _, _ := unstructured.NestedMap(u.Object, "spec", "provider", "vault", "auth")
		if _, token := auth["tokenSecretRef"]; token || auth["kubernetes"] == nil {
			t.Errorf("store in %s after upgrade: auth %v", ns, auth)
		}
	}
}

// TestIntegration_TenantTokenReach logs in to OpenBao as a consented
// namespace's ServiceAccount exactly as ESO does (a TokenRequest token,
// auth/<mount>/login with the role) and uses the OpenBao token directly, so
// the policy is tested without ESO's order of requests: the namespace's own
// leaves can be written, read and deleted; another namespace's leaf, a path
// of its own namespace outside the three leaves, listing, and sys/ are
// refused with 403.
func TestIntegration_TenantTokenReach(t *testing.T) {
	ks := stack.Keystone
	ctx := context.Background()
	cp := newPlane(t, "reach-plane", ks.URL, ks.AdminPassword, "reach-a")
	waitForReason(t, cp, c5c3v1alpha1.ReasonAdminCredentialReady)
	waitStoreReady(t, "reach-a", DefaultTenantStoreName)
	root, err := stack.KV()
	if err != nil {
		t.Fatal(err)
	}
	rootClient, err := openbao.NewClient(openbao.Config{Address: stack.OpenBao.Addr, Token: stack.OpenBao.Token})
	if err != nil {
		t.Fatal(err)
	}
	victim := backupPath(t, cp.Namespace, "victim")
	if _, err := rootClient.KVv2(stack.OpenBao.KVMount).Put(ctx, victim, map[string]any{"password": "untouched"}); err != nil {
		t.Fatal(err)
	}

	cs, err := kubernetes.NewForConfig(stack.Kube.Config)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts("reach-a").CreateToken(ctx, stack.OpenBao.ServiceAccount,
		&authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := bao.NewClient(bao.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetAddress(stack.OpenBao.Addr); err != nil {
		t.Fatal(err)
	}
	c.ClearToken()
	login, err := c.Logical().WriteWithContext(ctx, "auth/"+stack.OpenBao.AuthMount+"/login",
		map[string]any{"role": stack.OpenBao.Role, "jwt": tr.Status.Token})
	if err != nil || login == nil || login.Auth == nil {
		t.Fatalf("login as reach-a/%s: %v", stack.OpenBao.ServiceAccount, err)
	}
	if got := login.Auth.Policies; len(got) != 1 || got[0] != testenv.TenantPolicyName {
		t.Errorf("token policies %v, want only %s (no default policy)", got, testenv.TenantPolicyName)
	}
	c.SetToken(login.Auth.ClientToken)
	kv := c.KVv2(stack.OpenBao.KVMount)

	// Own leaves: write, read, delete.
	for _, leaf := range []string{
		backupPath(t, "reach-a", "svc"),
		"openstack/keystone/reach-a/app-1a2b3c4d-applicationcredential/service-accounts/application-credential",
		"openstack/keystone/reach-a/usr-1a2b3c4d-user/service-accounts/password",
	} {
		if _, err := kv.Put(ctx, leaf, map[string]any{"password": "own"}); err != nil {
			t.Errorf("write own leaf %s: %v", leaf, err)
			continue
		}
		if s, err := kv.Get(ctx, leaf); err != nil || s.Data["password"] != "own" {
			t.Errorf("read own leaf %s: %v", leaf, err)
		}
		if err := kv.DeleteMetadata(ctx, leaf); err != nil {
			t.Errorf("delete own leaf %s: %v", leaf, err)
		}
	}
	refused := func(what string, err error) {
		t.Helper()
		var re *bao.ResponseError
		if !errors.As(err, &re) || re.StatusCode != 403 {
			t.Errorf("%s: %v, want 403", what, err)
			return
		}
		t.Logf("%s: 403 %s", what, strings.Join(strings.Fields(strings.Join(re.Errors, " ")), " "))
	}
	_, err = kv.Get(ctx, victim)
	refused("read another namespace's leaf", err)
	_, err = kv.Put(ctx, victim, map[string]any{"password": "stolen"})
	refused("write another namespace's leaf", err)
	refused("delete another namespace's leaf", kv.DeleteMetadata(ctx, victim))
	_, err = kv.Put(ctx, "openstack/keystone/reach-a/svc/other", map[string]any{"x": "y"})
	refused("write outside the three leaves of its own namespace", err)
	_, err = c.Logical().ListWithContext(ctx, stack.OpenBao.KVMount+"/metadata/openstack/keystone/reach-a")
	refused("list its own namespace", err)
	_, err = c.Logical().ReadWithContext(ctx, "sys/mounts")
	refused("read sys/mounts", err)
	_, err = c.Logical().ReadWithContext(ctx, "sys/policies/acl/"+testenv.TenantPolicyName)
	refused("read sys/policies/acl", err)

	if s, err := root.Read(ctx, victim); err != nil || s.Data["password"] != "untouched" {
		t.Fatalf("victim leaf changed: %v", err)
	}
}
