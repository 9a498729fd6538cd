//go:build integration

package topology

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// docs/topology.md, "Reconciliation": a refused declaration is retried no
// sooner than its backoff. Neither the controller's own status patch (which
// re-enqueues the resource) nor other events inside the backoff send a
// request: here the backoff is an hour, and two edits of deletionPolicy are
// reconciled (the finalizer follows them) without one more request.
func TestIntegration_Topology_FailureWaitsForItsBackoff(t *testing.T) {
	counter := &countingTransport{next: http.DefaultTransport}
	ns := startOwnControllers(t, "topology-retry", Options{ResyncPeriod: time.Hour,
		BackoffBase: time.Hour, BackoffMax: time.Hour, DependencyRetry: time.Hour}, counter)
	name := uniq("conflict-q")
	if _, err := admin.DeclareQueue("/", name, rabbithole.QueueSettings{Durable: true,
		Arguments: map[string]any{"x-queue-type": "classic"}}); err != nil {
		t.Fatal(err)
	}
	q := &rmqv1.Queue{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: uniq("q")},
		Spec: rmqv1.QueueSpec{Durable: new(true), Name: name, Type: "quorum", RabbitmqClusterReference: ref()}}
	create(t, q)
	eventually(t, "the refusal is reported", func() error {
		c, err := readyStatus(q)
		if err != nil {
			return err
		}
		if c == nil || c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "inequivalent arg") {
			return fmt.Errorf("Ready = %+v", c)
		}
		return nil
	})
	requests := func() int64 {
		return counter.get.Load() + counter.put.Load() + counter.post.Load() + counter.delete.Load()
	}
	if n := counter.put.Load(); n != 1 {
		t.Fatalf("%d PUTs before the backoff passed, want 1", n)
	}
	before := requests()

	for _, p := range []struct {
		policy    rmqv1.DeletionPolicy
		finalizer bool
	}{{rmqv1.DeletionPolicyRetain, false}, {rmqv1.DeletionPolicyDelete, true}} {
		patch := fmt.Sprintf(`{"spec":{"deletionPolicy":%q}}`, p.policy)
		if err := kube.Patch(bg, q.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
			t.Fatal(err)
		}
		eventually(t, fmt.Sprintf("deletionPolicy %s is reconciled", p.policy), func() error {
			var got rmqv1.Queue
			if err := kube.Get(bg, client.ObjectKeyFromObject(q), &got); err != nil {
				return err
			}
			if controllerutil.ContainsFinalizer(&got, rmqv1.Finalizer) != p.finalizer {
				return errors.New("the finalizer does not follow deletionPolicy yet")
			}
			return nil
		})
	}
	if n := requests() - before; n != 0 {
		t.Fatalf("%d broker requests inside the backoff, want none", n)
	}
}
