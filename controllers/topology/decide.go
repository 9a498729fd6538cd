package topology

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// This file holds the pure decisions of the reconcile loop: whose resource it
// is, whether to send requests, how long to wait, and what Ready says. They
// take everything they need as arguments and are table-tested.

// ownership answers "is this resource mine?" from its rabbitmqClusterReference
// (docs/topology.md, "Which resources are served"). It returns ""
// when the resource is served here and otherwise why it is not.
//
// clusterName is the served cluster's name; ownNamespace is the controller's
// namespace, or "" when it watches several, in which case a reference must
// not leave the resource's own namespace.
func ownership(ref rmqv1.RabbitmqClusterReference, resourceNamespace, clusterName, ownNamespace string) string {
	switch {
	case ref.ConnectionSecret != nil:
		return fmt.Sprintf("rabbitmqClusterReference.connectionSecret %q is set; a controller resolving connection secrets serves it", ref.ConnectionSecret.Name)
	case ref.Name != clusterName:
		return fmt.Sprintf("rabbitmqClusterReference.name %q is not this controller's cluster %q", ref.Name, clusterName)
	case ownNamespace != "" && resourceNamespace != ownNamespace:
		return fmt.Sprintf("resource namespace %q is not this controller's namespace %q", resourceNamespace, ownNamespace)
	case ownNamespace != "" && ref.Namespace != "" && ref.Namespace != ownNamespace:
		return fmt.Sprintf("rabbitmqClusterReference.namespace %q is not this controller's namespace %q", ref.Namespace, ownNamespace)
	case ownNamespace == "" && ref.Namespace != "" && ref.Namespace != resourceNamespace:
		return fmt.Sprintf("rabbitmqClusterReference.namespace %q is not the resource's namespace %q", ref.Namespace, resourceNamespace)
	}
	return ""
}

// desiredHash is the hex SHA-256 of desired's JSON form. desired holds the
// spec as sent plus any referenced Secret value, so a changed password inside
// the same Secret changes the hash. The hash lives in memory only.
func desiredHash(desired any) (string, error) {
	b, err := json.Marshal(desired)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// attempt is what the reconciler remembers about one resource between
// reconciles (in memory, keyed by namespace/name and checked against the UID).
type attempt struct {
	uid string
	// key identifies what was last tried: the desired hash, or the text of a
	// failure that happened before a hash could be computed.
	key string
	// ok is true when the last attempt succeeded; then at is when.
	ok bool
	at time.Time
	// failures counts consecutive failed attempts; next is the earliest retry.
	failures int
	next     time.Time
	// message is the last failure, for the Ready condition, and reason
	// its Ready reason ("" for FailedCreateOrUpdate).
	message, reason string
	// drift is what a resync found different in the broker, kept while
	// the repairing declaration fails, so its success is reported as a
	// repair.
	drift string
}

// plan says what a reconcile does with the broker.
type plan struct {
	declare bool          // send the declaring requests now
	wait    time.Duration // when not declaring: requeue after this long
}

// planDeclare decides whether the desired state identified by key must be
// sent now. A new key (spec or Secret changed, or first sight) is sent at
// once; a failed key is retried after its backoff; a succeeded key is sent
// again only when resync has passed since it last succeeded, which repairs
// drift made behind the controller's back.
func planDeclare(last attempt, key string, now time.Time, resync time.Duration) plan {
	if last.key != key {
		return plan{declare: true}
	}
	if !last.ok {
		if d := last.next.Sub(now); d > 0 {
			return plan{wait: d}
		}
		return plan{declare: true}
	}
	// Requeues are scheduled resync (plus jitter) after success; accept a
	// little early wake-up as due.
	due := last.at.Add(resync - resync/20)
	if !now.Before(due) {
		return plan{declare: true}
	}
	return plan{wait: last.at.Add(resync).Sub(now)}
}

// backoff is the wait after the n-th consecutive failure (n ≥ 1; less
// counts as 1): base doubled per failure, capped at max.
func backoff(n int, base, max time.Duration) time.Duration {
	d := base
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	return d
}

// dependencyRetries is how many consecutive failures of one desired state
// the fast dependency retry covers in full (docs/topology.md,
// "Reconciliation"): a dependency applied in the same batch is declared
// within them. A refusal that outlasts them (the source exchange of a
// Binding that nothing declares, a vhost that stays gone) backs off
// exponentially from there.
const dependencyRetries = 5

// retryDelay is the wait after the n-th consecutive failure (n ≥ 1): the
// backoff (base doubled per failure, at most max). A refusal for a missing
// dependency waits at most depRetry for the first dependencyRetries
// failures, then at most depRetry doubled per further failure, so it
// reaches max too.
func retryDelay(n int, missing bool, base, max, depRetry time.Duration) time.Duration {
	d := backoff(n, base, max)
	if !missing {
		return d
	}
	return min(d, backoff(n-dependencyRetries+1, depRetry, max))
}

// readyCondition is the Ready condition for an outcome: True with
// SuccessfulCreateOrUpdate, or False with reason (FailedCreateOrUpdate when
// "") and message.
func readyCondition(ok bool, reason, message string, generation int64) metav1.Condition {
	if ok {
		return metav1.Condition{Type: rmqv1.ConditionReady, Status: metav1.ConditionTrue,
			Reason: rmqv1.ReasonSuccessfulCreateOrUpdate, Message: "", ObservedGeneration: generation}
	}
	if reason == "" {
		reason = rmqv1.ReasonFailedCreateOrUpdate
	}
	return metav1.Condition{Type: rmqv1.ConditionReady, Status: metav1.ConditionFalse,
		Reason: reason, Message: truncate(message, maxMessage), ObservedGeneration: generation}
}

// maxMessage bounds condition messages, as the OpenStack-Helm reconciler does.
const maxMessage = 1024

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// applyStatus sets the Ready condition and, on success, observedGeneration
// on st. lastTransitionTime is kept unless the status flips. It reports
// whether anything changed, so an unchanged status is not written.
func applyStatus(st *rmqv1.TopologyStatus, cond metav1.Condition, now metav1.Time) bool {
	changed := false
	old := meta.FindStatusCondition(st.Conditions, cond.Type)
	if old == nil || old.Status != cond.Status || old.Reason != cond.Reason ||
		old.Message != cond.Message || old.ObservedGeneration != cond.ObservedGeneration {
		cond.LastTransitionTime = now
		meta.SetStatusCondition(&st.Conditions, cond)
		changed = true
	}
	if cond.Status == metav1.ConditionTrue && st.ObservedGeneration != cond.ObservedGeneration {
		st.ObservedGeneration = cond.ObservedGeneration
		changed = true
	}
	return changed
}
