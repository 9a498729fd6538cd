//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// conditionLog is every condition an order's status carried from the time
// watchConditions started, read from a watch of the apiserver: a state the
// order passes through between two polls (the wait for a credential while
// K-ORC creates it) is recorded all the same.
type conditionLog struct {
	ac   *c5c3v1alpha1.KeystoneApplicationCredential
	mu   sync.Mutex
	seen []metav1.Condition
}

// watchConditions starts recording ac's conditions (ac need not exist yet)
// until the test ends.
func watchConditions(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential) *conditionLog {
	t.Helper()
	wc, err := client.NewWithWatch(stack.Kube.Config, client.Options{Scheme: kube.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &conditionLog{ac: ac}
	w, err := l.watch(ctx, wc, "")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go l.record(ctx, wc, w, done)
	t.Cleanup(func() { cancel(); <-done })
	return l
}

// watch watches the order by name from resourceVersion rv ("" from now).
func (l *conditionLog) watch(ctx context.Context, wc client.WithWatch, rv string) (watch.Interface, error) {
	return wc.Watch(ctx, &c5c3v1alpha1.KeystoneApplicationCredentialList{}, client.InNamespace(l.ac.Namespace),
		client.MatchingFields{"metadata.name": l.ac.Name}, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: rv}})
}

// record appends the conditions of every event until ctx ends, watching
// again from the last resourceVersion when the apiserver closes the watch.
func (l *conditionLog) record(ctx context.Context, wc client.WithWatch, w watch.Interface, done chan<- struct{}) {
	defer close(done)
	rv := ""
	for {
		for ev := range w.ResultChan() {
			ac, ok := ev.Object.(*c5c3v1alpha1.KeystoneApplicationCredential)
			if !ok {
				rv = "" // an error event (410 Gone): watch from now
				continue
			}
			rv = ac.ResourceVersion
			l.mu.Lock()
			l.seen = append(l.seen, ac.Status.Conditions...)
			l.mu.Unlock()
		}
		for {
			if ctx.Err() != nil {
				return
			}
			var err error
			if w, err = l.watch(ctx, wc, rv); err == nil {
				break
			}
			select { // the apiserver is restarting: try again shortly
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// waitSeen waits until the log holds condition typ at status/reason with a
// message containing want, and records the observation for hack/reasons.
func (l *conditionLog) waitSeen(t *testing.T, typ string, status metav1.ConditionStatus, reason, want string) {
	t.Helper()
	eventually(t, waitTimeout, fmt.Sprintf("%s=%s/%s naming %q seen", typ, status, reason, want), func() error {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, c := range l.seen {
			if c.Type == typ && c.Status == status && c.Reason == reason && strings.Contains(c.Message, want) {
				testenv.ObservedCondition(t, l.ac, c)
				return nil
			}
		}
		return fmt.Errorf("not among the %d conditions seen", len(l.seen))
	})
}
