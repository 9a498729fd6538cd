//go:build integration

package consumers

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/internal/testenv/consumerpods"
)

// replicas is the consumer Deployments' replica count.
const replicas = 2

// authloopSink imports the authloop image into the node and starts a sink,
// closed when the test ends.
func authloopSink(t *testing.T) *consumerpods.Sink {
	t.Helper()
	if err := consumerpods.ImportAuthloop(context.Background(), stack); err != nil {
		t.Fatal(err)
	}
	sk, err := consumerpods.NewSink()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sk.Close)
	return sk
}

// rolledOut is nil when consumers lists exactly one workload, RolledOut
// with stamp; else an error naming what it lists.
func rolledOut(list []c5c3v1alpha1.ConsumerStatus, app, stamp string) error {
	if len(list) != 1 || list[0].Name != app || list[0].State != c5c3v1alpha1.ConsumerRolledOut || list[0].Stamp != stamp {
		return fmt.Errorf("consumers %+v, want %s RolledOut %s", list, app, stamp)
	}
	return nil
}

// livePodsOn is nil when the pods labelled app=app that are not being
// deleted are replicas and each reported a success with credential cred to
// sk; else an error naming the first that did not.
func livePodsOn(sk *consumerpods.Sink, app, cred string) error {
	var l corev1.PodList
	if err := kube.List(context.Background(), &l, client.InNamespace(podsNS), client.MatchingLabels{"app": app}); err != nil {
		return err
	}
	reported := sk.Snapshot()
	live := 0
	for _, p := range l.Items {
		if p.DeletionTimestamp != nil {
			continue
		}
		live++
		if r := reported[p.Name]; r.Credential != cred || r.OK == 0 {
			return fmt.Errorf("pod %s reported credential %q, %d successes; delivered %s", p.Name, r.Credential, r.OK, cred)
		}
	}
	if live != replicas {
		return fmt.Errorf("%d live pods", live)
	}
	return nil
}

// stopWorkload scales d to zero, waits until its pods are gone and every
// pod sk knows sent its final report, and returns sk's records.
func stopWorkload(t *testing.T, d *appsv1.Deployment, sk *consumerpods.Sink) map[string]consumerpods.Pod {
	t.Helper()
	ctx := context.Background()
	// A merge patch of replicas alone: the hub's stamp patches of the same
	// Deployment cannot conflict with it.
	scale := client.MergeFrom(d.DeepCopy())
	d.Spec.Replicas = ptr.To[int32](0)
	if err := kube.Patch(ctx, d, scale); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, waitTimeout, fmt.Sprintf("every %s pod stopped and gone", d.Name), func() error {
		var l corev1.PodList
		if err := kube.List(ctx, &l, client.InNamespace(podsNS), client.MatchingLabels{"app": d.Name}); err != nil {
			return err
		}
		if len(l.Items) > 0 {
			return fmt.Errorf("%d pods left", len(l.Items))
		}
		for name, p := range sk.Snapshot() {
			if p.Stopped.IsZero() {
				return fmt.Errorf("pod %s sent no final report", name)
			}
		}
		return nil
	})
	return sk.Snapshot()
}

// checkPods fails the test unless every pod authenticated at least once
// and at least replicas pods per generation reported; it returns their
// token requests' totals.
func checkPods(t *testing.T, pods map[string]consumerpods.Pod, generations int) (ok, fail int) {
	t.Helper()
	for name, p := range pods {
		if p.OK == 0 {
			t.Errorf("pod %s (credential %s) never authenticated", name, p.Credential)
		}
	}
	if want := replicas * generations; len(pods) < want {
		t.Errorf("%d pods reported, want at least %d (two per generation)", len(pods), want)
	}
	return consumerpods.Totals(pods)
}

// spread is "min / median / max" of v, each formatted by f; "" when empty.
func spread[T cmp.Ordered](v []T, f func(T) string) string {
	if len(v) == 0 {
		return ""
	}
	s := slices.Sorted(slices.Values(v))
	return strings.Join([]string{f(s[0]), f(s[len(s)/2]), f(s[len(s)-1])}, " / ")
}

// seconds formats d to a tenth of a second.
func seconds(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }

// getOrder reads o again into o.
func getOrder(t *testing.T, o client.Object) {
	t.Helper()
	if err := kube.Get(context.Background(), client.ObjectKeyFromObject(o), o); err != nil {
		t.Fatal(err)
	}
}

// deleteAndWaitGone deletes obj and waits until the apiserver no longer has it.
func deleteAndWaitGone(t *testing.T, obj client.Object) {
	t.Helper()
	testenv.DeleteAndWaitGone(t, kube, waitTimeout, obj)
}
