//go:build integration

package topology

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// retries keeps, per resource name, the wait the loop chose after each
// failed attempt (log line "reconcile failed; retrying", backoff): the
// controller's own schedule, read without a clock.
type retries struct {
	mu    sync.Mutex
	waits map[string][]time.Duration
}

func (r *retries) of(name string) []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.waits[name]...)
}

// retrySink is the logr sink feeding retries.
type retrySink struct {
	r  *retries
	kv []any
}

func (s retrySink) Init(logr.RuntimeInfo)        {}
func (s retrySink) Enabled(level int) bool       { return level == 0 }
func (s retrySink) Error(error, string, ...any)  {}
func (s retrySink) WithName(string) logr.LogSink { return s }
func (s retrySink) WithValues(kv ...any) logr.LogSink {
	return retrySink{r: s.r, kv: append(append([]any{}, s.kv...), kv...)}
}

func (s retrySink) Info(_ int, msg string, kv ...any) {
	if msg != "reconcile failed; retrying" {
		return
	}
	all := append(append([]any{}, s.kv...), kv...)
	var name string
	var wait time.Duration
	for i := 0; i+1 < len(all); i += 2 {
		switch all[i] {
		case "name":
			name, _ = all[i+1].(string)
		case "backoff":
			str, _ := all[i+1].(string)
			wait, _ = time.ParseDuration(str)
		}
	}
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	s.r.waits[name] = append(s.r.waits[name], wait)
}

// growing checks waits: the first fast ones at most fastCap, every later
// one twice the one before.
func growing(waits []time.Duration, fast int, fastCap time.Duration) error {
	for i, w := range waits {
		switch {
		case i < fast && w > fastCap:
			return fmt.Errorf("wait %d is %v, want at most %v: %v", i+1, w, fastCap, waits)
		case i >= fast && i > 0 && w != 2*waits[i-1]:
			return fmt.Errorf("wait %d is %v after %v, want it doubled: %v", i+1, w, waits[i-1], waits)
		}
	}
	return nil
}

// docs/topology.md, "Reconciliation": a persistent refusal is retried with
// exponentially growing waits, each wait one broker request, and Ready
// quotes what the broker refused. A Binding whose source exchange nothing
// declares (404) takes the fast dependency retry for its first 5 failures
// and doubles after them; a Queue in a vhost where the controller's user
// has no permissions yet (401 Access refused, as while another
// administrator creates a vhost) doubles from its first failure.
func TestIntegration_Topology_PersistentRefusalsBackOff(t *testing.T) {
	const base = 100 * time.Millisecond
	counter := &countingTransport{next: http.DefaultTransport}
	rec := &retries{waits: map[string][]time.Duration{}}
	ns := startOwnControllersLogged(t, "topology-backoff", Options{ResyncPeriod: time.Hour,
		BackoffBase: base, BackoffMax: time.Hour, DependencyRetry: base}, counter, logr.New(retrySink{r: rec}))

	other, pw := uniq("other-admin"), "other-pw"
	if _, err := admin.PutUser(other, rabbitholeUser(pw)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.DeleteUser(other) })
	otherClient, err := rabbithole.NewClient(stack.RabbitMQ.URL, other, pw)
	if err != nil {
		t.Fatal(err)
	}
	vhost := uniq("others-vh")
	if _, err := otherClient.PutVhost(vhost, rabbithole.VhostSettings{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.DeleteVhost(vhost) })

	source := uniq("never-ex")
	b := &rmqv1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: uniq("b")}, Spec: rmqv1.BindingSpec{
		Source: source, Destination: uniq("any-q"), DestinationType: "queue", RoutingKey: "k",
		RabbitmqClusterReference: ref(), DeletionPolicy: rmqv1.DeletionPolicyRetain}}
	q := &rmqv1.Queue{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: uniq("q")}, Spec: rmqv1.QueueSpec{
		Name: uniq("refused-q"), Vhost: vhost, Durable: new(true),
		RabbitmqClusterReference: ref(), DeletionPolicy: rmqv1.DeletionPolicyRetain}}
	create(t, b)
	create(t, q)

	const bindingAttempts, queueAttempts = 9, 7
	eventually(t, "the refusals are retried", func() error {
		if n, m := len(rec.of(b.Name)), len(rec.of(q.Name)); n < bindingAttempts || m < queueAttempts {
			return fmt.Errorf("%d Binding and %d Queue attempts so far", n, m)
		}
		return nil
	})
	waits := rec.of(b.Name)
	if err := growing(waits[:bindingAttempts], dependencyRetries, base); err != nil {
		t.Errorf("Binding (404): %v", err)
	}
	// Each attempt is one POST (the only POSTs of these controllers); one
	// more may be under way.
	if posts := counter.post.Load(); posts < int64(len(waits)) || posts > int64(len(waits))+1 {
		t.Errorf("%d POSTs for %d logged Binding attempts", posts, len(waits))
	}
	if qw := rec.of(q.Name)[:queueAttempts]; qw[0] != base {
		t.Errorf("Queue (401): first wait %v, want the backoff base %v: %v", qw[0], base, qw)
	} else if err := growing(qw, 0, 0); err != nil {
		t.Errorf("Queue (401): %v", err)
	}
	t.Logf("Binding (404) waits %v, %d POSTs; Queue (401) waits %v", waits, counter.post.Load(), rec.of(q.Name))
	waitRefusal(t, b, "broker answered HTTP 404", fmt.Sprintf("no exchange '%s' in vhost '/'", source))
	waitRefusal(t, q, "broker answered HTTP 401: Access refused.")
	for _, c := range []object{b, q} {
		if got, err := readyStatus(c); err == nil && strings.Contains(strings.ToLower(got.Message), "credentials") {
			t.Errorf("%s: Ready message %q speaks of credentials", c.GetName(), got.Message)
		}
	}
}
