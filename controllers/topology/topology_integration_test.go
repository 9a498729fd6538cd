//go:build integration

package topology

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/password"
)

var bg = context.Background()

func credentialsSecret(name, username, password string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: meta_(name), StringData: map[string]string{
		SecretKeyUsername: username, SecretKeyPassword: password}}
}

func managementUser(name, secret string) *rmqv1.User {
	u := &rmqv1.User{ObjectMeta: meta_(name), Spec: rmqv1.UserSpec{
		Tags: []rmqv1.UserTag{"management"}, RabbitmqClusterReference: ref()}}
	if secret != "" {
		u.Spec.ImportCredentialsSecret = &corev1.LocalObjectReference{Name: secret}
	}
	return u
}

// Upstream issue 571 / K-ORC issue 723: a password changed inside the
// imported Secret reaches the broker; upstream issue 924: so does pointing
// the User at another Secret.
func TestIntegration_Topology_UserImportedSecretChangesReachBroker(t *testing.T) {
	username := uniq("svc")
	s1 := credentialsSecret(uniq("creds"), username, "first-password")
	create(t, s1)
	u := managementUser(uniq("user"), s1.Name)
	create(t, u)
	waitReady(t, u)
	eventually(t, "the first password logs in", func() error { return loginAs(username, "first-password") })
	if u.Status.Username != username || u.Status.Credentials == nil || u.Status.Credentials.Name != s1.Name {
		t.Fatalf("status username=%q credentials=%v", u.Status.Username, u.Status.Credentials)
	}

	s1.StringData = map[string]string{SecretKeyPassword: "second-password"}
	if err := kube.Update(bg, s1); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the changed password logs in", func() error { return loginAs(username, "second-password") })
	if err := loginAs(username, "first-password"); err == nil {
		t.Fatal("the old password still logs in")
	}

	s2 := credentialsSecret(uniq("creds"), username, "third-password")
	create(t, s2)
	u.Spec.ImportCredentialsSecret.Name = s2.Name
	if err := kube.Update(bg, u); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the other Secret's password logs in", func() error { return loginAs(username, "third-password") })
	waitReady(t, u)
	if u.Status.Credentials == nil || u.Status.Credentials.Name != s2.Name {
		t.Fatalf("status.credentials = %v, want %s", u.Status.Credentials, s2.Name)
	}

	deleteAndWait(t, u)
	eventually(t, "the user is deleted in the broker", func() error { _, err := admin.GetUser(username); return brokerGone(err) })
}

// OpenStack-Helm story 2011222: a password with %, @, :, / and spaces works.
func TestIntegration_Topology_PasswordWithSpecialCharacters(t *testing.T) {
	username := uniq("special")
	password := "p%41 @:/ w%rd / x"
	s := credentialsSecret(uniq("creds"), username, password)
	create(t, s)
	u := managementUser(uniq("user"), s.Name)
	create(t, u)
	waitReady(t, u)
	eventually(t, "the special password logs in", func() error { return loginAs(username, password) })
}

// Without importCredentialsSecret a password is generated once into
// <name>-user-credentials, owned by the User, and not rotated later.
func TestIntegration_Topology_GeneratedCredentials(t *testing.T) {
	u := managementUser(uniq("gen"), "")
	create(t, u)
	waitReady(t, u)
	var s corev1.Secret
	if err := kube.Get(bg, client.ObjectKey{Namespace: suiteNS, Name: u.Name + GeneratedSecretSuffix}, &s); err != nil {
		t.Fatal(err)
	}
	// The username is random, as upstream generates it, and reported.
	username := string(s.Data[SecretKeyUsername])
	if len(username) != password.Length || username == u.Name || u.Status.Username != username ||
		u.Status.Credentials == nil || u.Status.Credentials.Name != s.Name {
		t.Fatalf("secret username=%q, status username=%q credentials=%v", username, u.Status.Username, u.Status.Credentials)
	}
	if len(s.OwnerReferences) != 1 || s.OwnerReferences[0].UID != u.UID ||
		s.OwnerReferences[0].BlockOwnerDeletion == nil || *s.OwnerReferences[0].BlockOwnerDeletion {
		t.Fatalf("owner references %v, want the User, not blocking its deletion (upstream)", s.OwnerReferences)
	}
	pw := string(s.Data[SecretKeyPassword])
	if len(pw) != password.Length {
		t.Fatalf("generated password has %d characters", len(pw))
	}
	eventually(t, "the generated password logs in", func() error { return loginAs(username, pw) })
	// A spec change re-declares the user; the Secret must stay as written.
	u.Spec.Tags = []rmqv1.UserTag{"management", "monitoring"}
	if err := kube.Update(bg, u); err != nil {
		t.Fatal(err)
	}
	waitReady(t, u)
	if err := kube.Get(bg, client.ObjectKeyFromObject(&s), &s); err != nil {
		t.Fatal(err)
	}
	if string(s.Data[SecretKeyPassword]) != pw {
		t.Fatal("the generated password was rotated")
	}
	if err := loginAs(username, pw); err != nil {
		t.Fatalf("generated password after re-declaration: %v", err)
	}
}

// Upstream PR 576 / 65 / 82: deleting one of several bindings between the
// same exchange and queue removes exactly that one.
func TestIntegration_Topology_BindingDeletionRemovesExactlyOne(t *testing.T) {
	ex := &rmqv1.Exchange{ObjectMeta: meta_(uniq("ex")), Spec: rmqv1.ExchangeSpec{Name: uniq("ex"), Type: "headers", RabbitmqClusterReference: ref()}}
	q := &rmqv1.Queue{ObjectMeta: meta_(uniq("q")), Spec: rmqv1.QueueSpec{Durable: new(true), Name: uniq("q"), RabbitmqClusterReference: ref()}}
	create(t, ex)
	create(t, q)
	binding := func(rk, args string) *rmqv1.Binding {
		b := &rmqv1.Binding{ObjectMeta: meta_(uniq("b")), Spec: rmqv1.BindingSpec{Source: ex.Spec.Name, Destination: q.Spec.Name,
			DestinationType: "queue", RoutingKey: rk, RabbitmqClusterReference: ref()}}
		if args != "" {
			b.Spec.Arguments = raw(args)
		}
		return b
	}
	plain := binding("k1", "")
	withArgs := binding("k2", `{"x-match":"all","tier":"gold"}`)
	sameKeyArgs := binding("k1", `{"x-match":"any","tier":"silver"}`)
	for _, b := range []*rmqv1.Binding{plain, withArgs, sameKeyArgs} {
		create(t, b)
	}
	for _, b := range []*rmqv1.Binding{plain, withArgs, sameKeyArgs} {
		waitReady(t, b)
	}
	listed := func() ([]string, error) {
		bs, err := admin.ListQueueBindingsBetween("/", ex.Spec.Name, q.Spec.Name)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, b := range bs {
			out = append(out, fmt.Sprintf("%s%v", b.RoutingKey, b.Arguments))
		}
		sort.Strings(out)
		return out, nil
	}
	want := func(expected ...string) func() error {
		return func() error {
			got, err := listed()
			if err != nil {
				return err
			}
			sort.Strings(expected)
			if strings.Join(got, "|") != strings.Join(expected, "|") {
				return fmt.Errorf("bindings %v, want %v", got, expected)
			}
			return nil
		}
	}
	eventually(t, "three bindings", want("k1map[]", "k2map[tier:gold x-match:all]", "k1map[tier:silver x-match:any]"))

	deleteAndWait(t, withArgs)
	if err := want("k1map[]", "k1map[tier:silver x-match:any]")(); err != nil {
		t.Fatalf("after deleting the k2 binding with arguments: %v", err)
	}
	deleteAndWait(t, plain)
	if err := want("k1map[tier:silver x-match:any]")(); err != nil {
		t.Fatalf("after deleting the argument-less k1 binding: %v", err)
	}
}

// Upstream issues 243 / 708: a queue or policy deleted in the broker is
// declared again by the forced resync.
func TestIntegration_Topology_ResyncRedeclaresDeletedQueueAndPolicy(t *testing.T) {
	q := &rmqv1.Queue{ObjectMeta: meta_(uniq("q")), Spec: rmqv1.QueueSpec{Durable: new(true), Name: uniq("drift-q"), RabbitmqClusterReference: ref()}}
	p := &rmqv1.Policy{ObjectMeta: meta_(uniq("p")), Spec: rmqv1.PolicySpec{Name: uniq("drift-p"), Pattern: "^drift-never$",
		ApplyTo: "queues", Definition: raw(`{"message-ttl":70000}`), RabbitmqClusterReference: ref()}}
	create(t, q)
	create(t, p)
	waitReady(t, q)
	waitReady(t, p)
	if _, err := admin.DeleteQueue("/", q.Spec.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.DeletePolicy("/", p.Spec.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.GetQueue("/", q.Spec.Name); brokerGone(err) != nil {
		t.Fatalf("the queue was not deleted out of band: %v", err)
	}
	eventually(t, "the queue is declared again", func() error { _, err := admin.GetQueue("/", q.Spec.Name); return err })
	eventually(t, "the policy is declared again", func() error { _, err := admin.GetPolicy("/", p.Spec.Name); return err })
}

// Upstream issue 653: a Policy whose vhost was deleted first still finalizes.
func TestIntegration_Topology_PolicyFinalizesAfterItsVhost(t *testing.T) {
	vname := uniq("vh")
	v := &rmqv1.Vhost{ObjectMeta: meta_(uniq("vhost")), Spec: rmqv1.VhostSpec{Name: vname, RabbitmqClusterReference: ref()}}
	p := &rmqv1.Policy{ObjectMeta: meta_(uniq("p")), Spec: rmqv1.PolicySpec{Name: "ha_ttl_test", Vhost: vname, Pattern: `^(?!(amq\.|reply_)).*`,
		ApplyTo: "all", Definition: raw(`{"message-ttl":70000}`), RabbitmqClusterReference: ref()}}
	create(t, v)
	create(t, p)
	waitReady(t, v)
	waitReady(t, p)
	deleteAndWait(t, v)
	eventually(t, "the vhost is gone in the broker", func() error { _, err := admin.GetVhost(vname); return brokerGone(err) })
	deleteAndWait(t, p)
}

// Upstream issues 1183 / 786: a Permission whose User is gone still
// finalizes, by userReference and by user name.
func TestIntegration_Topology_PermissionFinalizesAfterItsUser(t *testing.T) {
	username := uniq("permuser")
	s := credentialsSecret(uniq("creds"), username, "pw")
	create(t, s)
	u := managementUser(uniq("user"), s.Name)
	create(t, u)
	byRef := &rmqv1.Permission{ObjectMeta: meta_(uniq("perm")), Spec: rmqv1.PermissionSpec{
		UserReference: &corev1.LocalObjectReference{Name: u.Name}, Vhost: "/",
		Permissions: rmqv1.VhostPermissions{Configure: ".*", Write: ".*", Read: ".*"}, RabbitmqClusterReference: ref()}}
	// In another vhost: a second Permission for the same user and vhost
	// would be a duplicate declaration (duplicates.go).
	other := uniq("permvhost")
	if _, err := admin.PutVhost(other, rabbithole.VhostSettings{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.DeleteVhost(other) })
	byName := &rmqv1.Permission{ObjectMeta: meta_(uniq("perm")), Spec: rmqv1.PermissionSpec{
		User: username, Vhost: other, Permissions: rmqv1.VhostPermissions{Read: ".*"}, RabbitmqClusterReference: ref()}}
	create(t, byRef)
	waitReady(t, byRef)
	p, err := admin.GetPermissionsIn("/", username)
	if err != nil || p.Configure != ".*" {
		t.Fatalf("permissions in the broker: %+v, %v", p, err)
	}
	create(t, byName)
	waitReady(t, byName)

	deleteAndWait(t, u)
	eventually(t, "the user is gone in the broker", func() error { _, err := admin.GetUser(username); return brokerGone(err) })
	deleteAndWait(t, byRef)
	deleteAndWait(t, byName)
}

// OpenStack-Helm commit 34b2a965: the root vhost "/" works in every path.
func TestIntegration_Topology_RootVhostEverywhere(t *testing.T) {
	root := &rmqv1.Vhost{ObjectMeta: meta_(uniq("root")), Spec: rmqv1.VhostSpec{Name: "/", RabbitmqClusterReference: ref(),
		DeletionPolicy: rmqv1.DeletionPolicyRetain}}
	exName, qName, pName := uniq("root-ex"), uniq("root-q"), uniq("root-p")
	username := uniq("rootuser")
	s := credentialsSecret(uniq("creds"), username, "pw")
	u := managementUser(uniq("user"), s.Name)
	ex := &rmqv1.Exchange{ObjectMeta: meta_(uniq("ex")), Spec: rmqv1.ExchangeSpec{Name: exName, Vhost: "/", Type: "topic", Durable: true, RabbitmqClusterReference: ref()}}
	q := &rmqv1.Queue{ObjectMeta: meta_(uniq("q")), Spec: rmqv1.QueueSpec{Durable: new(true), Name: qName, Vhost: "/", RabbitmqClusterReference: ref()}}
	b := &rmqv1.Binding{ObjectMeta: meta_(uniq("b")), Spec: rmqv1.BindingSpec{Vhost: "/", Source: exName, Destination: qName,
		DestinationType: "queue", RoutingKey: "notifications.#", RabbitmqClusterReference: ref()}}
	p := &rmqv1.Policy{ObjectMeta: meta_(uniq("p")), Spec: rmqv1.PolicySpec{Name: pName, Vhost: "/", Pattern: "^" + qName + "$",
		Definition: raw(`{"message-ttl":70000}`), RabbitmqClusterReference: ref()}}
	perm := &rmqv1.Permission{ObjectMeta: meta_(uniq("perm")), Spec: rmqv1.PermissionSpec{UserReference: &corev1.LocalObjectReference{Name: u.Name},
		Vhost: "/", Permissions: rmqv1.VhostPermissions{Configure: "^x$", Write: ".*", Read: ".*"}, RabbitmqClusterReference: ref()}}
	for _, o := range []client.Object{root, s, u, ex, q, b, p, perm} {
		create(t, o)
	}
	for _, o := range []object{root, u, ex, q, b, p, perm} {
		waitReady(t, o)
	}
	checks := map[string]func() error{
		"exchange":   func() error { _, err := admin.GetExchange("/", exName); return err },
		"queue":      func() error { _, err := admin.GetQueue("/", qName); return err },
		"policy":     func() error { _, err := admin.GetPolicy("/", pName); return err },
		"permission": func() error { _, err := admin.GetPermissionsIn("/", username); return err },
		"binding": func() error {
			bs, err := admin.ListQueueBindingsBetween("/", exName, qName)
			if err == nil && len(bs) != 1 {
				err = fmt.Errorf("%d bindings", len(bs))
			}
			return err
		},
	}
	for what, check := range checks {
		if err := check(); err != nil {
			t.Fatalf("%s in vhost /: %v", what, err)
		}
	}
	for _, o := range []client.Object{perm, b, p, q, ex, root} {
		deleteAndWait(t, o)
	}
	gone := map[string]func() error{
		"exchange":   func() error { _, err := admin.GetExchange("/", exName); return brokerGone(err) },
		"queue":      func() error { _, err := admin.GetQueue("/", qName); return brokerGone(err) },
		"policy":     func() error { _, err := admin.GetPolicy("/", pName); return brokerGone(err) },
		"permission": func() error { _, err := admin.GetPermissionsIn("/", username); return brokerGone(err) },
	}
	for what, check := range gone {
		if err := check(); err != nil {
			t.Fatalf("%s in vhost / after deletion: %v", what, err)
		}
	}
	if _, err := admin.GetVhost("/"); err != nil {
		t.Fatalf("the retained root vhost: %v", err)
	}
}

// docs/topology.md, "Configuration", and OpenStack-Helm commit a480a58d: the
// guest user re-created behind the controller's back is deleted again.
func TestIntegration_Topology_GuestUserDeletedAgain(t *testing.T) {
	for round := 1; round <= 2; round++ {
		if _, err := admin.PutUser(GuestUser, rabbitholeUser("guest")); err != nil {
			t.Fatalf("round %d: re-creating guest: %v", round, err)
		}
		eventually(t, fmt.Sprintf("round %d: guest is deleted", round), func() error {
			_, err := admin.GetUser(GuestUser)
			return brokerGone(err)
		})
	}
}

// A queue that already exists in the broker with another type: the
// declaration is refused and Ready=False carries the broker's own message
// (the type itself cannot be edited; docs/topology.md, "Immutable fields").
// Once the conflicting queue is gone the retry succeeds.
func TestIntegration_Topology_QueueTypeConflictReportsBrokerMessage(t *testing.T) {
	name := uniq("typed-q")
	if _, err := admin.DeclareQueue("/", name, rabbithole.QueueSettings{Durable: true,
		Arguments: map[string]any{"x-queue-type": "classic"}}); err != nil {
		t.Fatal(err)
	}
	q := &rmqv1.Queue{ObjectMeta: meta_(uniq("q")), Spec: rmqv1.QueueSpec{Durable: new(true), Name: name, Type: "quorum", RabbitmqClusterReference: ref()}}
	create(t, q)
	eventually(t, "Ready=False with the broker's message", func() error {
		c, err := readyStatus(q)
		if err != nil {
			return err
		}
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != rmqv1.ReasonFailedCreateOrUpdate ||
			!strings.Contains(c.Message, "inequivalent arg") {
			return fmt.Errorf("Ready condition %+v", c)
		}
		return nil
	})
	if _, err := admin.DeleteQueue("/", name); err != nil {
		t.Fatal(err)
	}
	waitReady(t, q)
}

// docs/topology.md, "Which resources are served": a resource with
// connectionSecret, another cluster name or another namespace gets no status
// and nothing in the broker; a served resource cannot be repointed.
func TestIntegration_Topology_ForeignResourcesAreLeftAlone(t *testing.T) {
	foreign := map[string]rmqv1.RabbitmqClusterReference{
		"connectionSecret":  {ConnectionSecret: &corev1.LocalObjectReference{Name: "upstream-conn"}},
		"other cluster":     {Name: "other-rabbitmq"},
		"another namespace": {Name: clusterName, Namespace: "elsewhere"},
	}
	for why, r := range foreign {
		q := &rmqv1.Queue{ObjectMeta: meta_(uniq("foreign")), Spec: rmqv1.QueueSpec{Durable: new(true), Name: uniq("foreign-q"), RabbitmqClusterReference: r}}
		create(t, q)
		eventually(t, why+": the controller decided the queue is not its own", func() error {
			if !ctrls.skippedLogged(q.UID) {
				return errors.New("not decided yet")
			}
			return nil
		})
		if err := kube.Get(bg, client.ObjectKeyFromObject(q), q); err != nil {
			t.Fatal(err)
		}
		if len(q.Status.Conditions) != 0 || q.Status.ObservedGeneration != 0 || len(q.Finalizers) != 0 {
			t.Fatalf("%s: status %+v finalizers %v, want none", why, q.Status, q.Finalizers)
		}
		if _, err := admin.GetQueue("/", q.Spec.Name); brokerGone(err) != nil {
			t.Fatalf("%s: the queue was declared: %v", why, err)
		}
	}

	// A served resource cannot be repointed (rabbitmqClusterReference is
	// immutable, as upstream's webhook has it): the queue would stay in this
	// broker with nothing deleting it.
	q := &rmqv1.Queue{ObjectMeta: meta_(uniq("moved")), Spec: rmqv1.QueueSpec{Durable: new(true), Name: uniq("moved-q"), RabbitmqClusterReference: ref()}}
	create(t, q)
	waitReady(t, q)
	if !controllerutil.ContainsFinalizer(q, rmqv1.Finalizer) {
		t.Fatal("a served queue with deletionPolicy delete has no finalizer")
	}
	q.Spec.RabbitmqClusterReference = rmqv1.RabbitmqClusterReference{ConnectionSecret: &corev1.LocalObjectReference{Name: "upstream-conn"}}
	if err := kube.Update(bg, q); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "rabbitmqClusterReference is immutable") {
		t.Fatalf("repointing a served queue: %v, want Invalid (rabbitmqClusterReference is immutable)", err)
	}
}

// deletionPolicy retain installs no finalizer and leaves the broker object.
func TestIntegration_Topology_RetainKeepsBrokerObject(t *testing.T) {
	ex := &rmqv1.Exchange{ObjectMeta: meta_(uniq("ex")), Spec: rmqv1.ExchangeSpec{Name: uniq("kept-ex"), RabbitmqClusterReference: ref(),
		DeletionPolicy: rmqv1.DeletionPolicyRetain}}
	create(t, ex)
	waitReady(t, ex)
	if len(ex.Finalizers) != 0 {
		t.Fatalf("finalizers %v with deletionPolicy retain", ex.Finalizers)
	}
	deleteAndWait(t, ex)
	if _, err := admin.GetExchange("/", ex.Spec.Name); err != nil {
		t.Fatalf("retained exchange: %v", err)
	}
	_, _ = admin.DeleteExchange("/", ex.Spec.Name)
}

// The CEL rule on rabbitmqClusterReference: exactly one of name and
// connectionSecret, and a name is not empty.
func TestIntegration_Topology_ClusterReferenceValidation(t *testing.T) {
	cases := map[string]rmqv1.RabbitmqClusterReference{
		"neither": {},
		"both":    {Name: clusterName, ConnectionSecret: &corev1.LocalObjectReference{Name: "c"}},
	}
	for what, r := range cases {
		v := &rmqv1.Vhost{ObjectMeta: meta_(uniq("invalid")), Spec: rmqv1.VhostSpec{Name: "x", RabbitmqClusterReference: r}}
		err := kube.Create(bg, v)
		if !apierrors.IsInvalid(err) {
			t.Errorf("%s: create returned %v, want Invalid", what, err)
		}
	}
	// An empty name is present for has() but refused by minLength.
	empty := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": rmqv1.GroupVersion.String(), "kind": "Vhost",
		"metadata": map[string]any{"namespace": suiteNS, "name": uniq("invalid")},
		"spec":     map[string]any{"name": "x", "rabbitmqClusterReference": map[string]any{"name": ""}},
	}}
	if err := kube.Create(bg, empty); !apierrors.IsInvalid(err) {
		t.Errorf("empty name: create returned %v, want Invalid", err)
	}
	// docs/topology.md, "Empty strings beside the other field": upstream
	// accepts an empty name beside a connectionSecret, and an empty user
	// beside a userReference; here both are refused.
	for what, spec := range map[string]map[string]any{
		"Vhost": {"name": "x", "rabbitmqClusterReference": map[string]any{"name": "", "connectionSecret": map[string]any{"name": "c"}}},
		"Permission": {"user": "", "userReference": map[string]any{"name": "u"}, "vhost": "/",
			"permissions": map[string]any{"read": ".*"}, "rabbitmqClusterReference": map[string]any{"name": clusterName}},
	} {
		o := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": rmqv1.GroupVersion.String(), "kind": what,
			"metadata": map[string]any{"namespace": suiteNS, "name": uniq("invalid")}, "spec": spec}}
		if err := kube.Create(bg, o); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "exactly one of") {
			t.Errorf("%s with an empty string beside the other field: create returned %v, want Invalid naming the rule", what, err)
		}
	}
	v := &rmqv1.Vhost{ObjectMeta: meta_(uniq("defaults")), Spec: rmqv1.VhostSpec{Name: uniq("defaults-vh"), RabbitmqClusterReference: ref()}}
	create(t, v)
	if v.Spec.DeletionPolicy != rmqv1.DeletionPolicyDelete {
		t.Fatalf("deletionPolicy defaulted to %q, want delete", v.Spec.DeletionPolicy)
	}
}

// A User naming the administrative user the controller authenticates as is
// refused: the controller's own password and tags stay, and it keeps working.
func TestIntegration_Topology_RefusesOwnAdminUser(t *testing.T) {
	s := credentialsSecret(uniq("hijack"), stack.RabbitMQ.User, "attacker-password")
	create(t, s)
	u := managementUser(uniq("hijack"), s.Name)
	create(t, u)
	eventually(t, "the User is refused", func() error {
		c, err := readyStatus(u)
		if err != nil {
			return err
		}
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != rmqv1.ReasonFailedCreateOrUpdate ||
			!strings.Contains(c.Message, "administrative user this controller authenticates as") {
			return fmt.Errorf("Ready = %+v", c)
		}
		return nil
	})
	if err := loginAs(stack.RabbitMQ.User, stack.RabbitMQ.Password); err != nil {
		t.Fatalf("the administrator's own password no longer works: %v", err)
	}
	v := &rmqv1.Vhost{ObjectMeta: meta_(uniq("after-hijack")),
		Spec: rmqv1.VhostSpec{Name: uniq("after-hijack"), RabbitmqClusterReference: ref()}}
	create(t, v)
	waitReady(t, v)
}
