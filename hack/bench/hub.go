package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/delivery/eso"
	"github.com/c5c3/orderhub/internal/testenv"
	"k8s.io/utils/ptr"
)

// The hub set: N KeystoneApplicationCredential orders, each with the
// KeystoneUser, KeystoneProject and KeystoneRoleAssignment (role member) it
// names, in a tenant namespace the ControlPlane assigns. The hub has no peer
// operator to time beside it (the alternative is the Helm ks-* jobs); what
// the set tells apart is the hub's own cost from that of K-ORC and ESO, which
// do the Keystone and OpenBao work it orders.
const (
	hubAPI = "c5c3.io/v1alpha1"
	// hubPlaneNS and hubPlane are the ControlPlane's namespace and name.
	hubPlaneNS = "bench-plane"
	hubPlane   = "cp"
	// hubTenantPrefix names the tenant namespace of repeat r at N:
	// <prefix><N>-<r>; the plane assigns one per N and repeat.
	hubTenantPrefix = "bench-hub-"
	// hubRole is the role every assignment grants (the stack Keystone's
	// bootstrap creates it).
	hubRole = "member"
	// The stack's server names of K-ORC and ESO (testenv.Stack.Kill).
	procKORC = "k-orc"
	procESO  = "external-secrets"
)

// korcKinds and esoKinds are what the hub's children and backups are
// counted by (K-ORC v2.6.0 kinds, openstack.k-orc.cloud/v1alpha1; ESO
// v0.16.2 kinds).
var (
	korcKinds = []string{"Domain", "Project", "User", "Role", "ApplicationCredential", "Service", "Endpoint"}
	esoKinds  = []schema.GroupVersionKind{eso.PushSecretGVK, eso.ExternalSecretGVK, eso.SecretStoreGVK}
)

func hubTenant(n, rep int) string { return fmt.Sprintf("%s%d-%d", hubTenantPrefix, n, rep) }

// seedHub creates the ControlPlane (External, the stack Keystone behind its
// counting proxy, so the hub's and K-ORC's Keystone requests are counted)
// assigning one tenant namespace per N of ns and repeat.
func (b *bench) seedHub(ctx context.Context, ns []int, repeat int) error {
	var assign []c5c3v1alpha1.NamespaceAssignment
	for _, n := range ns {
		for rep := 1; rep <= repeat; rep++ {
			name := hubTenant(n, rep)
			if err := b.kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
				return err
			}
			// The largest rotation budget: a new order's first password and
			// credential take a token each (docs/reference/controlplane.md,
			// "Rotation budget"), 2N for the set; past 3600 one starts a second.
			assign = append(assign, c5c3v1alpha1.NamespaceAssignment{Namespace: name, AllowedRoles: []c5c3v1alpha1.KeystoneName{hubRole},
				Domains: []c5c3v1alpha1.KeystoneName{controlplane.DefaultAdminDomain}, RotationsPerHour: ptr.To(int32(3600))})
		}
	}
	// The hub reads its target cluster registrations there (none here).
	if err := b.kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testenv.DefaultHubNamespace}}); err != nil {
		return err
	}
	return b.stack.SeedPlane(ctx, b.kube, testenv.PlaneSeed{Namespace: hubPlaneNS, Name: hubPlane,
		PasswordSecret: controlplane.DefaultPasswordSecret, PasswordKey: controlplane.DefaultPasswordKey,
		Spec: c5c3v1alpha1.ControlPlaneSpec{
			Services: c5c3v1alpha1.ServicesSpec{Keystone: &c5c3v1alpha1.ServiceKeystoneSpec{
				Mode: c5c3v1alpha1.KeystoneModeExternal, External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: b.keystoneProxy.URL + "/v3"}}},
			NamespaceAssignments: assign}})
}

// hubOrders are the set's 4N orders, namespace left empty.
func (b *bench) hubOrders() []*unstructured.Unstructured {
	ref := map[string]any{"name": hubPlane, "namespace": hubPlaneNS}
	var objs []*unstructured.Unstructured
	for i := 0; i < b.n; i++ {
		p, u, m, ac := fmt.Sprintf("p-%d", i), fmt.Sprintf("u-%d", i), fmt.Sprintf("m-%d", i), fmt.Sprintf("ac-%d", i)
		objs = append(objs,
			obj(hubAPI, "KeystoneProject", p, map[string]any{"controlPlaneRef": ref}),
			obj(hubAPI, "KeystoneUser", u, map[string]any{"controlPlaneRef": ref, "defaultProjectRef": map[string]any{"name": p}}),
			obj(hubAPI, "KeystoneRoleAssignment", m, map[string]any{"controlPlaneRef": ref,
				"userRef": map[string]any{"name": u}, "projectRef": map[string]any{"name": p}, "role": hubRole}),
			obj(hubAPI, "KeystoneApplicationCredential", ac, map[string]any{"controlPlaneRef": ref,
				"userRef": map[string]any{"name": u}, "projectRef": map[string]any{"name": p}}))
	}
	return objs
}

// runHubSet times the hub set once: a fresh `orderhub hub` process (its
// kubeconfig through a counting proxy), the stack's K-ORC and ESO beside
// it. It returns three rows: the hub (apply→Ready of every order, Keystone
// requests of the hub and K-ORC together, the hub's apiserver writes, RSS,
// CPU, deletion), and K-ORC and ESO (the objects they hold for the set,
// their CPU seconds while applying and their peak RSS since the stack
// started).
func (b *bench) runHubSet(ctx context.Context, rep int) ([]result, error) {
	tag := fmt.Sprintf("r%dn%d%s", rep, b.n, b.runID)
	var out []result
	if b.runs(runnerFloor) {
		floor, err := b.hubFloor(ctx, tag+"f")
		if err != nil {
			return out, fmt.Errorf("%s / %s: %w", setHub, runnerFloor, err)
		}
		b.logf("%s / %s: %s", setHub, runnerFloor, floor.summary())
		out = append(out, floor)
	}
	if b.runs(runnerKORCAlone) {
		alone, err := b.korcAlone(ctx, tag+"k")
		if err != nil {
			return out, fmt.Errorf("%s / %s: %w", setHub, runnerKORCAlone, err)
		}
		b.logf("%s / %s: %s", setHub, runnerKORCAlone, alone.summary())
		out = append(out, alone)
	}
	if !b.runs(runnerOrderhub) {
		return out, nil
	}
	rows, err := b.runHub(ctx, rep)
	return append(out, rows...), err
}

// runHub times the hub's own run of the hub set (runHubSet).
func (b *bench) runHub(ctx context.Context, rep int) ([]result, error) {
	ns := hubTenant(b.n, rep)
	objs := b.hubOrders()
	for _, o := range objs {
		o.SetNamespace(ns)
	}
	hub := result{Set: setHub, Runner: runnerOrderhub, Objects: len(objs), Metrics: map[string]float64{}}
	kp, kubeconfig, err := b.kubeProxy(ns)
	if err != nil {
		return nil, err
	}
	defer kp.Close()
	name := fmt.Sprintf("orderhub-hub-%d-%d", b.n, rep)
	log, err := b.stack.StartHub(ctx, b.kube, testenv.HubProcess{Name: name, Bin: b.orderhub, Kubeconfig: kubeconfig,
		TargetSecretNamespace: testenv.DefaultHubNamespace, Args: b.hubArgs()})
	if err != nil {
		return nil, err
	}
	defer func() { _ = b.stack.Terminate(name, 20*time.Second) }()
	if err := b.waitPlane(ctx); err != nil {
		return nil, err
	}
	b.logf("%s / %s: %d orders in namespace %s (log %s)", setHub, runnerOrderhub, len(objs), ns, log)
	pids := map[string]int{}
	for _, p := range []string{name, procKORC, procESO} {
		if pids[p], err = b.stack.Pid(p); err != nil {
			return nil, err
		}
	}
	if b.foreign > 0 {
		if err := b.measureForeign(ctx, pids[name], hub.Metrics); err != nil {
			return nil, err
		}
	}
	cpu0 := map[string]float64{}
	for p, pid := range pids {
		cpu0[p], _ = cpuSecondsOf(pid)
	}
	k0, kr0, be0, ber0 := kp.Counts(), kp.CountsByResource(), b.keystoneProxy.Counts(), b.keystoneProxy.CountsByResource()
	bel0 := b.keystoneProxy.CountsByClass()
	start := time.Now()
	if err := b.applyAll(ctx, objs); err != nil {
		return nil, err
	}
	if err := b.waitReady(ctx, ns, objs, conditionTrue("Ready", true)); err != nil {
		return nil, err
	}
	hub.Metrics[mApplyReady] = time.Since(start).Seconds()
	n := float64(len(objs))
	reqs := b.keystoneProxy.Counts().Sub(be0).Total()
	hub.Metrics[mBackendApply] = float64(reqs) / n
	hub.Metrics[mReqPerCredential] = float64(reqs) / float64(b.n)
	hub.Metrics[mKubeWrites] = float64(kp.Counts().Sub(k0).Writes()) / n
	hub.Writes = writesOnly(kp.CountsByResource().Sub(kr0))
	b.logf("%s / %s: apiserver writes while applying: %s", setHub, runnerOrderhub, topWrites(hub.Writes, 8))
	b.logf("%s / %s: Keystone requests while applying: %s", setHub, runnerOrderhub,
		topWrites(collapseIDs(b.keystoneProxy.CountsByResource().Sub(ber0)), 16))
	b.logf("%s / %s: Keystone logins while applying: %s", setHub, runnerOrderhub, topWrites(b.keystoneProxy.CountsByClass().Sub(bel0), 8))
	cpu := map[string]float64{}
	for p, pid := range pids {
		c, _ := cpuSecondsOf(pid)
		cpu[p] = c - cpu0[p]
	}
	hub.Metrics[mCPU] = cpu[name]

	korcCounts, err := b.countKinds(ctx, korcGVKs())
	if err != nil {
		return nil, err
	}
	esoCounts, err := b.countKinds(ctx, esoKinds)
	if err != nil {
		return nil, err
	}
	korcRow := result{Set: setHub, Runner: runnerKORC, Objects: total(korcCounts), Note: describeCounts(korcCounts),
		Metrics: map[string]float64{mCPU: cpu[procKORC]}}
	esoRow := result{Set: setHub, Runner: runnerESO, Objects: total(esoCounts), Note: describeCounts(esoCounts),
		Metrics: map[string]float64{mCPU: cpu[procESO]}}

	if hub.Note, err = b.measureHubSteady(ctx, len(objs), hub.Metrics); err != nil {
		return nil, err
	}
	if b.hashRounds > 0 {
		hub.Note = fmt.Sprintf("password_hash_rounds %d; %s", b.hashRounds, hub.Note)
	}

	// The application credentials first, as
	// docs/reference/keystoneapplicationcredential.md advises, then the rest.
	var acs, rest []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "KeystoneApplicationCredential" {
			acs = append(acs, o)
		} else {
			rest = append(rest, o)
		}
	}
	start = time.Now()
	var deleteErr error
	if b.deleteTimeout == 0 {
		// -delete-timeout 0: the stack is thrown away with the orders.
		hub.Note = strings.TrimPrefix(hub.Note+"; deletion not measured (-delete-timeout 0)", "; ")
	} else if err := b.deleteAll(ctx, ns, acs, b.deleteTimeout, b.deleteStall); err != nil {
		deleteErr = err
	} else if err := b.deleteAll(ctx, ns, rest, b.deleteTimeout, b.deleteStall); err != nil {
		deleteErr = err
	} else {
		hub.Metrics[mDelete] = time.Since(start).Seconds()
	}
	if deleteErr != nil {
		hub.Note = strings.TrimPrefix(hub.Note+"; deletion incomplete: "+deleteErr.Error(), "; ")
		b.logf("%s / %s: %s; removing finalizers", setHub, runnerOrderhub, hub.Note)
		if err := b.dropFinalizers(ctx, ns, objs, time.Minute); err != nil {
			return nil, err
		}
	}
	for p, row := range map[string]*result{name: &hub, procKORC: &korcRow, procESO: &esoRow} {
		if rss, err := peakRSSMiBOf(pids[p]); err == nil {
			row.Metrics[mRSS] = rss
		}
	}
	out := []result{hub, korcRow, esoRow}
	for _, r := range out {
		b.logf("%s / %s: %s", r.Set, r.Runner, r.summary())
	}
	return out, nil
}

// waitPlane polls until the ControlPlane's admin credential is verified.
func (b *bench) waitPlane(ctx context.Context) error {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var cp c5c3v1alpha1.ControlPlane
		err := b.kube.Get(ctx, client.ObjectKey{Namespace: hubPlaneNS, Name: hubPlane}, &cp)
		if err == nil && meta.IsStatusConditionTrue(cp.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ControlPlane %s/%s not AdminCredentialReady within 5m: %v %v", hubPlaneNS, hubPlane, err, cp.Status.Conditions)
		}
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func korcGVKs() []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	gv, _ := schema.ParseGroupVersion(korcAPI)
	for _, k := range korcKinds {
		out = append(out, gv.WithKind(k))
	}
	return out
}

// countKinds counts the objects of each kind in every namespace; a kind the
// apiserver does not serve counts 0.
func (b *bench) countKinds(ctx context.Context, gvks []schema.GroupVersionKind) (map[string]int, error) {
	out := map[string]int{}
	for _, gvk := range gvks {
		l := eso.NewList(gvk)
		if err := b.kube.List(ctx, l, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "0"}}); err != nil {
			if meta.IsNoMatchError(err) {
				continue
			}
			return nil, fmt.Errorf("list %s: %w", gvk.Kind, err)
		}
		if len(l.Items) > 0 {
			out[gvk.Kind] = len(l.Items)
		}
	}
	return out, nil
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// describeCounts is "12 Project, 3 User", kinds sorted.
func describeCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}

// hubArgs are the hub's extra flags: --pprof-bind-address with -hub-pprof.
func (b *bench) hubArgs() []string {
	if b.hubPprof == "" {
		return nil
	}
	return []string{"--pprof-bind-address=" + b.hubPprof}
}

// runs reports whether -runners selects runner (all run when it is empty).
func (b *bench) runs(runner string) bool {
	return len(b.runners) == 0 || slices.Contains(b.runners, runner)
}

// hubRunners are the runners of the hub set that -runners can choose.
var hubRunners = []string{runnerFloor, runnerKORCAlone, runnerOrderhub}

// checkHubRunners rejects, for the hub set, a -runners list naming a
// runner the hub set does not have: its K-ORC and ESO rows describe the
// hub's own run and cannot be chosen apart.
func checkHubRunners(hubSet bool, runners []string) error {
	if !hubSet {
		return nil
	}
	for _, r := range runners {
		if !slices.Contains(hubRunners, r) {
			return fmt.Errorf("-runners: the hub set runs floor, k-orc-alone and orderhub, not %q", r)
		}
	}
	return nil
}
