package main

import (
	"bytes"
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/delivery/clusters"
	"github.com/c5c3/orderhub/internal/testenv"
)

// Foreign Secrets (-foreign-secrets): Secrets a tenant creates in a namespace
// the hub does not serve, while the hub runs (docs/performance.md, "Hub memory
// and unrelated Secrets").
const (
	foreignNS   = "bench-unrelated"
	foreignSize = 500 << 10
	// mRSSForeign is the growth of the hub's resident set (VmRSS, MiB) from
	// before the Secrets to after its cache has seen the last one;
	// mRSSForeignESO the same for ESO.
	mRSSForeign    = "rss_growth_foreign_mib"
	mRSSForeignESO = "eso_rss_growth_foreign_mib"
)

// measureForeign creates b.foreign Secrets of foreignSize bytes in foreignNS,
// then a registration Secret whose kubeconfig runs an exec plugin. The hub
// refuses that one with a KubeconfigRefused event; since its Secret informer
// delivers events in order, the event means the cache has seen every Secret
// before it. It records the VmRSS growth of the hub (pid) and of ESO.
func (b *bench) measureForeign(ctx context.Context, pid int, metrics map[string]float64) error {
	esoPid, err := b.stack.Pid(procESO)
	if err != nil {
		return err
	}
	hub0, err := rssMiBOf(pid)
	if err != nil {
		return err
	}
	eso0, err := rssMiBOf(esoPid)
	if err != nil {
		return err
	}
	if err := b.kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: foreignNS}}); client.IgnoreAlreadyExists(err) != nil {
		return err
	}
	blob := bytes.Repeat([]byte("x"), foreignSize)
	for i := range b.foreign {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: foreignNS, Name: fmt.Sprintf("blob-%d", i)},
			Data: map[string][]byte{"blob": blob}}
		if err := b.kube.Create(ctx, s); client.IgnoreAlreadyExists(err) != nil {
			return err
		}
	}
	sentinel := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: testenv.DefaultHubNamespace,
		Name: fmt.Sprintf("bench-sentinel-%d", time.Now().UnixNano()), Labels: map[string]string{clusters.DefaultSecretLabel: "true"}},
		Data: map[string][]byte{clusters.DefaultSecretKey: []byte(sentinelKubeconfig)}}
	if err := b.kube.Create(ctx, sentinel); err != nil {
		return err
	}
	if err := b.waitEvent(ctx, sentinel, clusters.EventKubeconfigRefused); err != nil {
		return err
	}
	hub1, err := rssMiBOf(pid)
	if err != nil {
		return err
	}
	eso1, err := rssMiBOf(esoPid)
	if err != nil {
		return err
	}
	metrics[mRSSForeign], metrics[mRSSForeignESO] = hub1-hub0, eso1-eso0
	b.logf("foreign Secrets: %d of %d KiB; hub VmRSS %.0f -> %.0f MiB, ESO %.0f -> %.0f MiB",
		b.foreign, foreignSize>>10, hub0, hub1, eso0, eso1)
	return b.kube.Delete(ctx, sentinel)
}

// sentinelKubeconfig is refused before any connection (an exec plugin).
const sentinelKubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/false, interactiveMode: Never}}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`

// waitEvent polls until an event of reason names obj, or b.timeout passes.
func (b *bench) waitEvent(ctx context.Context, obj client.Object, reason string) error {
	deadline := time.Now().Add(b.timeout)
	for time.Now().Before(deadline) {
		var evs corev1.EventList
		if err := b.kube.List(ctx, &evs, client.InNamespace(obj.GetNamespace())); err != nil {
			return err
		}
		for _, e := range evs.Items {
			if e.InvolvedObject.Name == obj.GetName() && e.Reason == reason {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return fmt.Errorf("no %s event on %s/%s", reason, obj.GetNamespace(), obj.GetName())
}

// rssMiBOf is process pid's current resident set (VmRSS) in MiB.
func rssMiBOf(pid int) (float64, error) { return statusMiBOf(pid, "VmRSS") }
