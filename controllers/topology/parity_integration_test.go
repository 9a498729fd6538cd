//go:build integration

package topology

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// docs/topology.md, "CRDs of OpenStack-Helm's rabbitmq chart": a Binding
// without destinationType is refused at admission, naming both meanings
// (upstream binds an exchange, OpenStack-Helm's CRDs default to queue);
// destinationType: exchange binds an exchange in the broker, and its
// deletion removes exactly that exchange-to-exchange binding.
func TestIntegration_Topology_BindingDestinationTypeMustBeSaid(t *testing.T) {
	src := &rmqv1.Exchange{ObjectMeta: meta_(uniq("ex")), Spec: rmqv1.ExchangeSpec{Name: uniq("src-ex"), Type: "topic", RabbitmqClusterReference: ref()}}
	dst := &rmqv1.Exchange{ObjectMeta: meta_(uniq("ex")), Spec: rmqv1.ExchangeSpec{Name: uniq("dst-ex"), Type: "fanout", RabbitmqClusterReference: ref()}}
	create(t, src)
	create(t, dst)
	b := &rmqv1.Binding{ObjectMeta: meta_(uniq("b")), Spec: rmqv1.BindingSpec{Source: src.Spec.Name, Destination: dst.Spec.Name,
		RoutingKey: "events.#", RabbitmqClusterReference: ref()}}
	err := kube.Create(bg, b.DeepCopy())
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "destinationType must be set, queue or exchange: the upstream operator binds an omitted destinationType to an exchange, OpenStack-Helm's CRDs default it to queue") {
		t.Fatalf("create of a Binding without destinationType: %v, want Invalid naming both meanings", err)
	}
	b.Spec.DestinationType = "exchange"
	create(t, b)
	waitReady(t, b)
	bs, err := admin.ListExchangeBindingsBetween("/", src.Spec.Name, dst.Spec.Name)
	if err != nil || len(bs) != 1 || bs[0].DestinationType != "exchange" || bs[0].RoutingKey != "events.#" {
		t.Fatalf("exchange bindings between %s and %s: %+v, %v", src.Spec.Name, dst.Spec.Name, bs, err)
	}
	deleteAndWait(t, b)
	eventually(t, "the exchange binding is deleted", func() error {
		bs, err := admin.ListExchangeBindingsBetween("/", src.Spec.Name, dst.Spec.Name)
		if err == nil && len(bs) != 0 {
			return fmt.Errorf("%d bindings left", len(bs))
		}
		return err
	})
}

// docs/topology.md, "CRDs of OpenStack-Helm's rabbitmq chart": a Queue
// without durable is refused at admission, naming both meanings (upstream's
// webhook defaults true, OpenStack-Helm's CRDs false); durable false and
// true each reach the broker as said.
func TestIntegration_Topology_QueueDurableMustBeSaid(t *testing.T) {
	q := &rmqv1.Queue{ObjectMeta: meta_(uniq("q")), Spec: rmqv1.QueueSpec{Name: uniq("said-q"), RabbitmqClusterReference: ref()}}
	err := kube.Create(bg, q.DeepCopy())
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "durable must be set, true or false: the upstream operator defaults an omitted durable to true, OpenStack-Helm's CRDs to false") {
		t.Fatalf("create of a Queue without durable: %v, want Invalid naming both meanings", err)
	}
	for _, durable := range []bool{false, true} {
		q := &rmqv1.Queue{ObjectMeta: meta_(uniq("q")), Spec: rmqv1.QueueSpec{Name: uniq(fmt.Sprintf("durable-%v-q", durable)),
			Durable: new(durable), RabbitmqClusterReference: ref()}}
		create(t, q)
		waitReady(t, q)
		got, err := admin.GetQueue("/", q.Spec.Name)
		if err != nil || got.Durable != durable {
			t.Fatalf("queue %s in the broker: %+v, %v; want durable %v", q.Spec.Name, got, err, durable)
		}
		deleteAndWait(t, q)
	}
}

// Upstream makes the User the controller owner of a Permission naming it by
// userReference (github.com/rabbitmq/messaging-topology-operator
// internal/controller/permission_controller.go): deleting the User deletes
// the Permission through the garbage collector, instead of leaving it
// Ready=False for good.
func TestIntegration_Topology_PermissionIsCollectedWithItsUser(t *testing.T) {
	username := uniq("owned")
	s := credentialsSecret(uniq("creds"), username, "pw")
	create(t, s)
	u := managementUser(uniq("user"), s.Name)
	create(t, u)
	perm := &rmqv1.Permission{ObjectMeta: meta_(uniq("perm")), Spec: rmqv1.PermissionSpec{
		UserReference: &corev1.LocalObjectReference{Name: u.Name}, Vhost: "/",
		Permissions: rmqv1.VhostPermissions{Configure: ".*", Write: ".*", Read: ".*"}, RabbitmqClusterReference: ref()}}
	create(t, perm)
	waitReady(t, perm)
	if err := kube.Get(bg, client.ObjectKeyFromObject(u), u); err != nil {
		t.Fatal(err)
	}
	owner := metav1.GetControllerOf(perm)
	if owner == nil || owner.UID != u.UID || owner.Kind != "User" || owner.BlockOwnerDeletion == nil || !*owner.BlockOwnerDeletion {
		t.Fatalf("controller owner %+v, want the User %s blocking its deletion", owner, u.UID)
	}
	if _, err := admin.GetPermissionsIn("/", username); err != nil {
		t.Fatalf("permissions in the broker: %v", err)
	}

	if err := kube.Delete(bg, u); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Permission is collected with its User", func() error {
		err := kube.Get(bg, client.ObjectKeyFromObject(perm), &rmqv1.Permission{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return errors.New("the Permission still exists")
	})
	if _, err := admin.GetUser(username); brokerGone(err) != nil {
		t.Fatalf("the user in the broker after the User's deletion: %v", err)
	}
}

// User semantics of upstream (github.com/rabbitmq/messaging-topology-operator
// internal/controller/user_controller.go and internal/user.go): an import
// Secret without username is an error, not a fallback to the resource name;
// the password reaches the broker as a salted SHA-512 password_hash, so the
// broker records SHA-512 (a plain password would be hashed with the
// broker's default, SHA-256).
func TestIntegration_Topology_UserSemanticsMatchUpstream(t *testing.T) {
	s := &corev1.Secret{ObjectMeta: meta_(uniq("creds")), StringData: map[string]string{SecretKeyPassword: "pw-without-user"}}
	create(t, s)
	u := managementUser(uniq("nouser"), s.Name)
	create(t, u)
	eventually(t, "the User without username is refused", func() error {
		c, err := readyStatus(u)
		if err != nil {
			return err
		}
		if c == nil || c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, `no "username" key`) {
			return fmt.Errorf("Ready = %+v", c)
		}
		return nil
	})
	if _, err := admin.GetUser(u.Name); brokerGone(err) != nil {
		t.Fatalf("a user named after the resource was declared: %v", err)
	}

	username := uniq("hashed")
	s.StringData = map[string]string{SecretKeyUsername: username}
	if err := kube.Update(bg, s); err != nil {
		t.Fatal(err)
	}
	waitReady(t, u)
	if u.Status.Username != username {
		t.Fatalf("status.username %q, want %q", u.Status.Username, username)
	}
	info, err := admin.GetUser(username)
	if err != nil {
		t.Fatal(err)
	}
	if info.HashingAlgorithm != rabbithole.HashingAlgorithmSHA512 || !passwordMatches(info.PasswordHash, info.HashingAlgorithm, "pw-without-user") {
		t.Fatalf("broker user %s: hashing_algorithm %q; want a SHA-512 hash of the password", username, info.HashingAlgorithm)
	}
	eventually(t, "the password logs in", func() error { return loginAs(username, "pw-without-user") })
}

// A Permission on a vhost not declared yet is answered 400
// vhost_or_user_not_found (not 404); it takes the fast dependency retry, so
// it follows its vhost within its first retries (DependencyRetry, doubling
// after dependencyRetries failures) although its backoff is an hour.
func TestIntegration_Topology_PermissionOnMissingVhostRetriesFast(t *testing.T) {
	ns := startOwnControllers(t, "topology-dep", Options{ResyncPeriod: time.Hour,
		BackoffBase: time.Hour, BackoffMax: time.Hour, DependencyRetry: 500 * time.Millisecond}, nil)
	vhost := uniq("later-vh")
	perm := &rmqv1.Permission{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: uniq("perm")}, Spec: rmqv1.PermissionSpec{
		User: stack.RabbitMQ.User, Vhost: vhost, Permissions: rmqv1.VhostPermissions{Read: ".*"},
		RabbitmqClusterReference: ref(), DeletionPolicy: rmqv1.DeletionPolicyRetain}}
	create(t, perm)
	eventually(t, "the Permission reports the missing vhost", func() error {
		c, err := readyStatus(perm)
		if err != nil {
			return err
		}
		if c == nil || c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "vhost_or_user_not_found") {
			return fmt.Errorf("Ready = %+v", c)
		}
		return nil
	})
	if _, err := admin.PutVhost(vhost, rabbithole.VhostSettings{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.DeleteVhost(vhost) })
	waitReady(t, perm)
	p, err := admin.GetPermissionsIn(vhost, stack.RabbitMQ.User)
	if err != nil || p.Read != ".*" {
		t.Fatalf("permissions in %s: %+v, %v", vhost, p, err)
	}
}

// Upstream's Queue webhook refuses a quorum queue that is not durable; here
// a CEL rule does, with upstream's meaning, before the broker sees it.
func TestIntegration_Topology_QuorumQueueMustBeDurable(t *testing.T) {
	q := &rmqv1.Queue{ObjectMeta: meta_(uniq("q")), Spec: rmqv1.QueueSpec{Name: uniq("quorum-q"), Type: "quorum",
		Durable: new(false), RabbitmqClusterReference: ref()}}
	if err := kube.Create(bg, q); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "quorum queues must be durable") {
		t.Fatalf("create of a non-durable quorum queue: %v, want Invalid", err)
	}
	q.Spec.Durable = new(true)
	create(t, q)
	waitReady(t, q)
}
