package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/internal/testenv"
)

// applyWorkers is how many objects are created (and deleted) at once, for
// every runner alike: roughly what `kubectl apply` of a large file does.
const applyWorkers = 8

// controllerRun is one controller timed on one set: it is started as a
// process in a fresh namespace, the objects are applied, and everything is
// measured from the process and the counting proxies.
type controllerRun struct {
	set, runner string
	// start runs the controller for namespace ns with a kubeconfig that goes
	// through the apiserver counting proxy; probe is the URL that answers
	// 2xx once it serves.
	start func(ctx context.Context, ns, kubeconfig string) (*process, error)
	// prepare creates what the objects need (Secrets), directly, uncounted.
	prepare func(ctx context.Context, ns string) error
	// objects are the set, namespace left empty (filled in).
	objects []*unstructured.Unstructured
	ready   func(*unstructured.Unstructured) bool
	// backend counts the controller's requests to Keystone or the broker.
	backend *testenv.CountingProxy
	// resyncs is set when the controller runs with the bench's -resync as
	// its forced resync period: the run then also measures a resync window.
	resyncs bool
}

// step is one runner of a set: its name (-runners) and its run.
type step struct {
	runner string
	run    func() (result, error)
}

// runSteps runs a set's steps in order, those -runners names (all without
// it), and logs each result; it stops at the first error.
func (b *bench) runSteps(steps []step) ([]result, error) {
	var out []result
	for _, s := range steps {
		if b.runners != nil && !slices.Contains(b.runners, s.runner) {
			continue
		}
		r, err := s.run()
		if err != nil {
			return out, fmt.Errorf("%s / %s: %w", r.Set, r.Runner, err)
		}
		b.logf("%s / %s: %s", r.Set, r.Runner, r.summary())
		out = append(out, r)
	}
	return out, nil
}

func (b *bench) newNamespace(ctx context.Context, prefix string) (string, error) {
	b.seq++
	ns := fmt.Sprintf("%s-%d", prefix, b.seq)
	return ns, b.kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
}

// runController measures one controllerRun. Per object: backend requests
// while applying and over the steady window, apiserver writes while
// applying; the process's CPU seconds while applying and its peak RSS.
func (b *bench) runController(ctx context.Context, r controllerRun) (result, error) {
	res := result{Set: r.set, Runner: r.runner, Objects: len(r.objects), Metrics: map[string]float64{}}
	ns, err := b.newNamespace(ctx, "bench")
	if err != nil {
		return res, err
	}
	for _, o := range r.objects {
		o.SetNamespace(ns)
	}
	if r.prepare != nil {
		if err := r.prepare(ctx, ns); err != nil {
			return res, fmt.Errorf("prepare: %w", err)
		}
	}
	kp, kubeconfig, err := b.kubeProxy(ns)
	if err != nil {
		return res, err
	}
	defer kp.Close()
	p, err := r.start(ctx, ns, kubeconfig)
	if err != nil {
		return res, err
	}
	defer p.stop()
	b.logf("%s / %s: %d objects in namespace %s (log %s)", r.set, r.runner, len(r.objects), ns, p.log)

	cpu0, _ := p.cpuSeconds()
	k0, kr0, be0 := kp.Counts(), kp.CountsByResource(), r.backend.Counts()
	start := time.Now()
	if err := b.applyAll(ctx, r.objects); err != nil {
		return res, err
	}
	if err := b.waitReady(ctx, ns, r.objects, r.ready); err != nil {
		return res, err
	}
	ready := time.Now()
	res.Metrics[mApplyReady] = ready.Sub(start).Seconds()
	cpu1, _ := p.cpuSeconds()
	n := float64(len(r.objects))
	res.Metrics[mBackendApply] = float64(r.backend.Counts().Sub(be0).Total()) / n
	res.Metrics[mKubeWrites] = float64(kp.Counts().Sub(k0).Writes()) / n
	res.Writes = writesOnly(kp.CountsByResource().Sub(kr0))
	b.logf("%s / %s: apiserver writes while applying: %s", r.set, r.runner, topWrites(res.Writes, 8))
	b.logf("%s / %s: backend requests while applying, by method: %s", r.set, r.runner, topWrites(r.backend.Counts().Sub(be0), 8))
	res.Metrics[mCPU] = cpu1 - cpu0

	if err := b.measureSteady(ctx, r.backend, n, res.Metrics); err != nil {
		return res, err
	}
	if r.runner == runnerOrderhub && b.concurrency > 0 {
		res.Note = fmt.Sprintf("--concurrency=%d", b.concurrency)
	}
	if r.resyncs && b.resync > 0 {
		if err := b.measureResync(ctx, r.backend, n, ready, res.Metrics); err != nil {
			return res, err
		}
		res.Note = strings.TrimPrefix(res.Note+fmt.Sprintf("; resync every %s: %.2f req/object (%.2f writes), busiest tenth of the period %.0f%%",
			b.resync, res.Metrics[mResync], res.Metrics[mResyncWrites], 100*res.Metrics[mResyncBusiest]), "; ")
		if apply := ready.Sub(start); apply > b.resync/2 {
			// The first resyncs come half a period after an object's
			// reconcile: they overlapped the apply and slowed it.
			res.Note += fmt.Sprintf("; apply→Ready (%s) is over half the resync period: resyncs overlapped it, use a longer -resync", apply.Round(time.Second))
		}
	}

	start = time.Now()
	if err := b.deleteAll(ctx, ns, r.objects, b.deleteTimeout, b.deleteStall); err != nil {
		// Reported, not fatal: the objects' finalizers are removed so the
		// next runner starts clean.
		res.Note = "deletion incomplete: " + err.Error()
		b.logf("%s / %s: %s; removing finalizers", r.set, r.runner, res.Note)
		if err := b.dropFinalizers(ctx, ns, r.objects, time.Minute); err != nil {
			return res, err
		}
	} else {
		res.Metrics[mDelete] = time.Since(start).Seconds()
	}
	if rss, err := p.peakRSSMiB(); err == nil {
		res.Metrics[mRSS] = rss
	}
	return res, nil
}

// measureSteady counts backend's requests per object (n objects) over the
// -steady window into m[mBackendSteady]; a window of 0 measures nothing.
func (b *bench) measureSteady(ctx context.Context, backend *testenv.CountingProxy, n float64, m map[string]float64) error {
	if b.steady <= 0 {
		return nil
	}
	start := backend.Counts()
	select {
	case <-time.After(b.steady):
	case <-ctx.Done():
		return ctx.Err()
	}
	m[mBackendSteady] = float64(backend.Counts().Sub(start).Total()) / n
	return nil
}

// measureResync counts backend's requests over one resync period, from 1.5
// periods after Ready on: an object's first forced resync comes 0.5 to 1.5
// periods after its reconcile, and every later one exactly a period after
// the last (docs/identity.md "Reconcile loop"), so from then on each object
// resyncs once per period. The period is sampled in tenths to show whether
// the resyncs spread or burst. ready is when the set was Ready.
func (b *bench) measureResync(ctx context.Context, backend *testenv.CountingProxy, n float64, ready time.Time, m map[string]float64) error {
	select {
	case <-time.After(time.Until(ready.Add(b.resync * 3 / 2))):
	case <-ctx.Done():
		return ctx.Err()
	}
	start, startBy := backend.Counts(), backend.CountsByResource()
	last, busiest := start, int64(0)
	tick := time.NewTicker(b.resync / 10)
	defer tick.Stop()
	for i := 0; i < 10; i++ {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
		cur := backend.Counts()
		busiest = max(busiest, cur.Sub(last).Total())
		last = cur
	}
	total := last.Sub(start)
	b.logf("resync period %s: %s", b.resync, topWrites(collapseIDs(backend.CountsByResource().Sub(startBy)), 6))
	m[mResync] = float64(total.Total()) / n
	m[mResyncWrites] = float64(total.Total()-total[http.MethodGet]) / n
	if total.Total() > 0 {
		m[mResyncBusiest] = float64(busiest) / float64(total.Total())
	}
	return nil
}

// collapseIDs folds request counts by "<method> <path>" whose path segments
// are Keystone IDs (32 hex digits) into "{id}".
func collapseIDs(c map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range c {
		if v == 0 {
			continue
		}
		parts := strings.Split(k, "/")
		for i, p := range parts {
			if len(p) == 32 && strings.Trim(p, "0123456789abcdef") == "" {
				parts[i] = "{id}"
			}
		}
		out[strings.Join(parts, "/")] += v
	}
	return out
}

// kubeProxy starts a counting proxy in front of the apiserver and writes a
// kubeconfig through it, <logDir>/<ns>.kubeconfig, for the controller of
// namespace ns. Close the proxy when the run is over.
func (b *bench) kubeProxy(ns string) (*testenv.CountingProxy, string, error) {
	kp, err := testenv.NewCountingProxy(b.stack.Kube.URL, testenv.CountingProxyOptions{CAFile: b.stack.Kube.CAFile, BearerToken: b.stack.Kube.Config.BearerToken})
	if err != nil {
		return nil, "", err
	}
	kubeconfig := filepath.Join(b.logDir, ns+".kubeconfig")
	if err := b.stack.Kube.KubeconfigVia(kubeconfig, kp.URL); err != nil {
		kp.Close()
		return nil, "", err
	}
	return kp, kubeconfig, nil
}

// parallel applies f to objs with applyWorkers workers and returns the
// first error.
func parallel(objs []*unstructured.Unstructured, f func(*unstructured.Unstructured) error) error {
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	work := make(chan *unstructured.Unstructured)
	for w := 0; w < applyWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range work {
				if err := f(o); err != nil {
					once.Do(func() { first = fmt.Errorf("%s %s: %w", o.GetKind(), o.GetName(), err) })
				}
			}
		}()
	}
	for _, o := range objs {
		work <- o
	}
	close(work)
	wg.Wait()
	return first
}

func (b *bench) applyAll(ctx context.Context, objs []*unstructured.Unstructured) error {
	return parallel(objs, func(o *unstructured.Unstructured) error { return b.kube.Create(ctx, o.DeepCopy()) })
}

// pollInterval grows with the set so polling does not load the apiserver
// more than the controllers do: 250 ms, plus 0.2 ms per object.
func pollInterval(n int) time.Duration {
	return 250*time.Millisecond + time.Duration(n)*200*time.Microsecond
}

// kinds are the distinct GroupVersionKinds of objs, sorted.
func kinds(objs []*unstructured.Unstructured) []schema.GroupVersionKind {
	seen := map[schema.GroupVersionKind]bool{}
	var out []schema.GroupVersionKind
	for _, o := range objs {
		if gvk := o.GroupVersionKind(); !seen[gvk] {
			seen[gvk] = true
			out = append(out, gvk)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// list returns the objects of every kind of objs in ns (from the
// apiserver's watch cache: resourceVersion 0).
func (b *bench) list(ctx context.Context, ns string, objs []*unstructured.Unstructured) ([]unstructured.Unstructured, error) {
	var all []unstructured.Unstructured
	for _, gvk := range kinds(objs) {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := b.kube.List(ctx, l, client.InNamespace(ns), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "0"}}); err != nil {
			return nil, err
		}
		all = append(all, l.Items...)
	}
	return all, nil
}

// deleteAll deletes objs and polls until none is left in ns: at most
// timeout, and at most stall (when not 0) without any object going away.
func (b *bench) deleteAll(ctx context.Context, ns string, objs []*unstructured.Unstructured, timeout, stall time.Duration) error {
	if err := b.deleteEach(ctx, objs); err != nil {
		return err
	}
	return b.waitGone(ctx, ns, objs, timeout, stall)
}

// deleteEach deletes objs, in parallel; one already gone is no error.
func (b *bench) deleteEach(ctx context.Context, objs []*unstructured.Unstructured) error {
	return parallel(objs, func(o *unstructured.Unstructured) error {
		return client.IgnoreNotFound(b.kube.Delete(ctx, o.DeepCopy()))
	})
}

// waitGone polls until none of objs is left in ns: at most timeout, and at
// most stall (when not 0) without any object going away.
func (b *bench) waitGone(ctx context.Context, ns string, objs []*unstructured.Unstructured, timeout, stall time.Duration) error {
	deadline := time.Now().Add(timeout)
	left, progress := -1, time.Now()
	for {
		items, err := b.list(ctx, ns, objs)
		if err != nil {
			return err
		}
		if len(items) == 0 {
			return nil
		}
		if len(items) != left {
			left, progress = len(items), time.Now()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d objects left in %s %v after deletion", len(items), ns, timeout)
		}
		if stall > 0 && time.Since(progress) > stall {
			return fmt.Errorf("%d objects left in %s, none gone for %v", len(items), ns, stall)
		}
		select {
		case <-time.After(pollInterval(len(objs))):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// conditionTrue reports whether the object's status has condition typ with
// status True; withGeneration also requires the condition's
// observedGeneration to be the object's generation.
func conditionTrue(typ string, withGeneration bool) func(*unstructured.Unstructured) bool {
	return func(u *unstructured.Unstructured) bool {
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			m, ok := c.(map[string]any)
			if !ok || m["type"] != typ {
				continue
			}
			if m["status"] != "True" {
				return false
			}
			if withGeneration {
				g, _ := m["observedGeneration"].(int64)
				return g == u.GetGeneration()
			}
			return true
		}
		return false
	}
}

// obj builds an unstructured object of apiVersion and kind.
func obj(apiVersion, kind, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": name},
		"spec":     spec,
	}}
}

func (b *bench) createSecret(ctx context.Context, ns, name string, data map[string]string) error {
	return b.createLabelledSecret(ctx, ns, name, nil, data)
}

func (b *bench) createLabelledSecret(ctx context.Context, ns, name string, labels, data map[string]string) error {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}, StringData: data}
	if err := b.kube.Create(ctx, s); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// hostPort splits a proxy's base URL into host and port.
func hostPort(base string) (string, int) {
	u, _ := url.Parse(base)
	port, _ := strconv.Atoi(u.Port())
	return u.Hostname(), port
}

// dropFinalizers deletes what is left of objs (each with its namespace set
// to ns) and removes their finalizers, by name rather than from a list of
// the apiserver's cache, which may not show the last changes yet, waiting
// at most wait until they are gone. The deletion comes first: a controller
// still running adds its finalizer again to an object that is not being
// deleted, while the apiserver refuses a new finalizer on one that is.
func (b *bench) dropFinalizers(ctx context.Context, ns string, objs []*unstructured.Unstructured, wait time.Duration) error {
	if err := b.deleteEach(ctx, objs); err != nil {
		return err
	}
	drop := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))
	if err := parallel(objs, func(o *unstructured.Unstructured) error {
		return client.IgnoreNotFound(b.kube.Patch(ctx, o.DeepCopy(), drop))
	}); err != nil {
		return err
	}
	return b.waitGone(ctx, ns, objs, wait, 0)
}
