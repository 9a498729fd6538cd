package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/internal/testenv/consumerpods"
)

// Consumer pods (Config.Pods): per workloadSecrets entry an opted-in
// authloop Deployment of podReplicas on the management stack's node,
// requesting a token every podInterval (docs/soak.md, "Consumer pods").
const (
	podReplicas = 2
	// podInterval is longer than the in-process consumers' second: the
	// stack's single Keystone process serves about 6 token requests a second
	// on a 2-core machine, and the five in-process consumers, the watchers,
	// the hub and K-ORC use most of that (docs/soak.md, "Consumer pods").
	podInterval = 5 * time.Second
	// podLive: a pod that reported within this time (three periods: a
	// request may take a while on a busy Keystone) and sent no stop report
	// counts as running.
	podLive = 3 * podInterval
	// podsTimeout bounds the wait for the pods at the start and at the end.
	podsTimeout = 5 * time.Minute
)

// workload is one consumer Deployment and the delivered Secret it reads.
type workload struct {
	d    delivered
	name string
}

func (w workload) id() string { return w.d.namespace + "/" + w.name }

// workloadSecrets are the delivered Secrets on the management cluster that
// get consumer pods: the rotated account password and the application
// credential.
func workloadSecrets() []workload {
	var out []workload
	for _, d := range consumerSecrets() {
		if d.cluster == "" && (d.rotates || d.kind == credApplication) {
			out = append(out, workload{d: d, name: "authloop-" + strings.TrimSuffix(d.name, "-credentials")})
		}
	}
	return out
}

// startPods imports authloop into the node, starts the sink and the
// Deployments, and waits until each has podReplicas ready pods that
// reported a success. Errors: the image, the sink or a Deployment.
func (e *env) startPods(ctx context.Context) error {
	if err := consumerpods.ImportAuthloop(ctx, e.st); err != nil {
		return err
	}
	sk, err := consumerpods.NewSink()
	if err != nil {
		return err
	}
	e.sink = sk
	for _, w := range workloadSecrets() {
		var s corev1.Secret
		if err := e.mgmt.Get(ctx, client.ObjectKey{Namespace: w.d.namespace, Name: w.d.name}, &s); err != nil {
			return err
		}
		cloud, err := consumerpods.Cloud(s.Data)
		if err != nil {
			return fmt.Errorf("%s: %w", w.d.id(), err)
		}
		if err := e.mgmt.Create(ctx, consumerpods.Deployment(consumerpods.Workload{Namespace: w.d.namespace, Name: w.name,
			Secret: w.d.name, Cloud: cloud, SinkURL: sk.URL, Interval: podInterval, Replicas: podReplicas})); err != nil {
			return err
		}
	}
	start := time.Now()
	if err := poll(ctx, podsTimeout, "consumer pods running", func() error { return e.podsSettled(ctx, false) }); err != nil {
		return err
	}
	e.logf("consumer pods running after %s", time.Since(start).Round(time.Second))
	return nil
}

// podsSettled returns nil when every workload has podReplicas ready pods
// and as many running pods in the sink whose latest attempt succeeded; with
// current, each of them must also hold the credential the Secret carries
// now (the hub rolled the workload onto it).
func (e *env) podsSettled(ctx context.Context, current bool) error {
	pods := e.sink.Snapshot()
	for _, w := range workloadSecrets() {
		var l corev1.PodList
		if err := e.mgmt.List(ctx, &l, client.InNamespace(w.d.namespace), client.MatchingLabels{"app": w.name}); err != nil {
			return err
		}
		ready := 0
		for _, p := range l.Items {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && p.DeletionTimestamp.IsZero() {
					ready++
				}
			}
		}
		if ready < podReplicas {
			return fmt.Errorf("%s: %d of %d pods ready", w.id(), ready, podReplicas)
		}
		want := ""
		if current {
			want = e.rec.credentialAt(w.d.id(), time.Now())
		}
		running := 0
		for _, p := range l.Items {
			sp, ok := pods[p.Name]
			if !ok || !sp.Stopped.IsZero() || time.Since(sp.Last) > podLive {
				continue
			}
			if !sp.LastOK {
				return fmt.Errorf("%s: pod %s: latest token request failed", w.id(), p.Name)
			}
			if want != "" && sp.Credential != want {
				return fmt.Errorf("%s: pod %s holds %s, the Secret carries %s", w.id(), p.Name, short(sp.Credential), short(want))
			}
			running++
		}
		if running < podReplicas {
			return fmt.Errorf("%s: %d of %d pods report successes", w.id(), running, podReplicas)
		}
	}
	return nil
}

// stopPods scales the workloads to zero and waits until their pods are
// gone and every pod the sink knows sent its final report, so the figures
// are complete and no pod runs into the orders' deletion. A pod without a
// final report is a report error.
func (e *env) stopPods(ctx context.Context, rep *Report) {
	for _, w := range workloadSecrets() {
		patch := client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"replicas":0}}`))
		if err := poll(ctx, podsTimeout, "scale "+w.id()+" to zero", func() error {
			return e.mgmt.Patch(ctx, consumerpods.Deployment(consumerpods.Workload{Namespace: w.d.namespace, Name: w.name}), patch)
		}); err != nil {
			rep.Errors = append(rep.Errors, err.Error())
		}
	}
	if err := poll(ctx, podsTimeout, "consumer pods stopped", func() error {
		for _, w := range workloadSecrets() {
			var l corev1.PodList
			if err := e.mgmt.List(ctx, &l, client.InNamespace(w.d.namespace), client.MatchingLabels{"app": w.name}); err != nil {
				return err
			}
			if len(l.Items) > 0 {
				return fmt.Errorf("%s: %d pods left", w.id(), len(l.Items))
			}
		}
		var missing []string
		for name, p := range e.sink.Snapshot() {
			if p.Stopped.IsZero() {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			sort.Strings(missing)
			return fmt.Errorf("no final report from %s", strings.Join(missing, ", "))
		}
		return nil
	}); err != nil {
		rep.Errors = append(rep.Errors, err.Error())
	}
	for _, w := range workloadSecrets() {
		d := consumerpods.Deployment(consumerpods.Workload{Namespace: w.d.namespace, Name: w.name})
		if err := e.mgmt.Delete(ctx, d, &client.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}); err != nil && !isGone(err) {
			rep.Errors = append(rep.Errors, fmt.Sprintf("delete %s: %v", w.id(), err))
		}
	}
	e.logf("consumer pods stopped")
}

// PodReport is one consumer workload's pods (docs/soak.md, "Consumer pods").
type PodReport struct {
	Workload string `json:"workload"`
	Secret   string `json:"secret"`
	Kind     string `json:"kind"`
	Rotates  bool   `json:"rotates"`
	// Pods that reported; Credentials the distinct credentials they loaded.
	Pods        int `json:"pods"`
	Credentials int `json:"credentials"`
	// Requests are token requests; Rejected those Keystone answered with
	// 401, 403 or 404; Unreachable the other failures (Keystone away).
	Requests    int `json:"tokenRequests"`
	Rejected    int `json:"rejected"`
	Unreachable int `json:"unreachable"`
	// For a password: Superseded counts the rejections of pods that loaded
	// a password the Secret no longer carried then (unavoidable until the
	// rollout: Keystone keeps one password per user); OutsideWindow those of
	// pods holding the current password outside the re-read window.
	Superseded    int `json:"rejectedSuperseded"`
	OutsideWindow int `json:"rejectedOutsideWindow"`
	// Failures: the pods with failures and their first errors, at most 20.
	Failures []string `json:"failures,omitempty"`
}

// checkPods fills the pod part of rep from the sink.
func (e *env) checkPods(rep *Report) {
	pods := e.sink.Snapshot()
	for _, w := range workloadSecrets() {
		pr := PodReport{Workload: w.id(), Secret: w.d.id(), Kind: w.d.kind, Rotates: w.d.rotates}
		mine := map[string]consumerpods.Pod{}
		creds := map[string]bool{}
		for name, p := range pods {
			if !strings.HasPrefix(name, w.name+"-") {
				continue
			}
			mine[name] = p
			creds[p.Credential] = true
			pr.Pods++
			pr.Requests += p.OK + p.Fail
			pr.Rejected += p.Rejected
			pr.Unreachable += p.Fail - p.Rejected
			if w.d.kind == credPassword {
				sup, out := passwordRejections(p, w.d.rotates, func(t time.Time) string { return e.rec.credentialAt(w.d.id(), t) },
					e.rec.inWindow)
				pr.Superseded += sup
				pr.OutsideWindow += out
			}
		}
		pr.Credentials = len(creds)
		if f := consumerpods.Failures(mine); len(f) > 20 {
			pr.Failures = f[:20]
		} else {
			pr.Failures = f
		}
		rep.Pods = append(rep.Pods, pr)
	}
}

// passwordRejections splits a password pod's rejections: superseded, when
// the Secret carried another password than the pod loaded at that time
// (carriedAt; "" before the first read counts as the same); outside, when it
// carried the pod's password and the time was outside the rotation's
// re-read window (inWindow; a password that does not rotate has none),
// the rule of the in-process consumers (docs/soak.md, "The report").
func passwordRejections(p consumerpods.Pod, rotates bool, carriedAt func(time.Time) string, inWindow func(time.Time) bool) (superseded, outside int) {
	for _, at := range p.RejectedAt {
		switch cur := carriedAt(at); {
		case cur != "" && cur != p.Credential:
			superseded++
		case !rotates || !inWindow(at):
			outside++
		}
	}
	return superseded, outside
}
