package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/oshref"
)

const (
	orderhubTopologyAPI = "rabbitmq.osh.openstack.org/v1alpha1"
	mtoAPI              = "rabbitmq.com/v1beta1"
	// benchClusterName is the rabbitmqClusterReference.name orderhub serves.
	benchClusterName = "rabbitmq"
	// mtoConnectionSecret is the upstream operator's connectionSecret: the
	// broker's management URI (through the counting proxy) and admin.
	mtoConnectionSecret = "bench-rabbitmq"
)

// topologySet is 1 exchange, N queues each bound to it, and a vhost, a user,
// a permission and a policy: 2N+5 objects. apiVersion and the cluster
// reference differ per controller; the specs are the same (orderhub's kinds
// follow the upstream operator's, docs/topology.md).
func topologySet(apiVersion string, ref map[string]any, n int, tag string) []*unstructured.Unstructured {
	with := func(spec map[string]any) map[string]any {
		spec["rabbitmqClusterReference"] = ref
		return spec
	}
	ex := "bench-ex-" + tag
	objs := []*unstructured.Unstructured{
		obj(apiVersion, "Exchange", "ex", with(map[string]any{"name": ex, "type": "direct", "durable": true})),
	}
	for i := 0; i < n; i++ {
		q := fmt.Sprintf("bench-%s-q%d", tag, i)
		objs = append(objs,
			obj(apiVersion, "Queue", fmt.Sprintf("q-%d", i), with(map[string]any{"name": q, "durable": true})),
			obj(apiVersion, "Binding", fmt.Sprintf("b-%d", i), with(map[string]any{"source": ex, "destination": q,
				"destinationType": "queue", "routingKey": q})))
	}
	objs = append(objs,
		obj(apiVersion, "Vhost", "vhost", with(map[string]any{"name": "bench-" + tag})),
		obj(apiVersion, "User", "user", with(map[string]any{"tags": []any{"management"}})),
		obj(apiVersion, "Permission", "permission", with(map[string]any{"vhost": "/", "userReference": map[string]any{"name": "user"},
			"permissions": map[string]any{"configure": "^bench-", "write": "^bench-", "read": "^bench-"}})),
		obj(apiVersion, "Policy", "policy", with(map[string]any{"name": "bench-" + tag, "vhost": "/", "pattern": "^bench-" + tag + "-",
			"applyTo": "queues", "priority": int64(0), "definition": map[string]any{"max-length": int64(100000)}})),
	)
	return objs
}

// runTopologySet times the topology set: the broker floor, the Kubernetes
// floor, orderhub, the upstream messaging-topology-operator and, with
// -osh-checkout, OpenStack-Helm's Python controller (oshpython.go).
func (b *bench) runTopologySet(ctx context.Context, rep int) ([]result, error) {
	tag := fmt.Sprintf("r%dn%d%s", rep, b.n, b.runID)
	r := b.stack.RabbitMQ
	host, port := hostPort(b.brokerProxy.URL)
	oh := controllerRun{
		set: setTopology, runner: runnerOrderhub, backend: b.brokerProxy,
		objects: topologySet(orderhubTopologyAPI, map[string]any{"name": benchClusterName}, b.n, tag+"o"),
		ready:   conditionTrue("Ready", false),
		start: func(ctx context.Context, ns, kubeconfig string) (*process, error) {
			probe, err := freePort()
			if err != nil {
				return nil, err
			}
			return startProcess(ctx, ns+"-orderhub-topology", b.logDir, b.orderhub,
				append([]string{"topology", "--namespace=" + ns, "--leader-elect=false", "--metrics-bind-address=0",
					"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(probe)}, b.concurrencyArgs()...),
				[]string{"KUBECONFIG=" + kubeconfig, "RABBITMQ_HOST=" + host, "RABBITMQ_PORT=" + strconv.Itoa(port),
					"RABBITMQ_USERNAME=" + r.User, "RABBITMQ_PASSWORD=" + r.Password, "RABBITMQ_CLUSTER_NAME=" + benchClusterName},
				fmt.Sprintf("http://127.0.0.1:%d/readyz", probe))
		},
	}
	mto := controllerRun{
		set: setTopology, runner: runnerMTO, backend: b.brokerProxy,
		objects: topologySet(mtoAPI, map[string]any{"connectionSecret": map[string]any{"name": mtoConnectionSecret}}, b.n, tag+"m"),
		ready:   conditionTrue("Ready", false),
		prepare: func(ctx context.Context, ns string) error {
			// The operator caches only Secrets with this label (its cmd/main.go).
			return b.createLabelledSecret(ctx, ns, mtoConnectionSecret, map[string]string{"rabbitmq.com/topology-operator": "true"}, map[string]string{
				"uri": b.brokerProxy.URL, "username": r.User, "password": r.Password})
		},
		start: func(ctx context.Context, ns, kubeconfig string) (*process, error) {
			probe, err := freePort()
			if err != nil {
				return nil, err
			}
			// Out of cluster: webhooks off, one namespace, no leader election.
			return startProcess(ctx, ns+"-messaging-topology-operator", b.logDir, filepath.Join(b.mtoDir, "manager"),
				[]string{"--metrics-bind-address=0", "--leader-elect=false", "--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(probe)},
				[]string{"KUBECONFIG=" + kubeconfig, "ENABLE_WEBHOOKS=false", "OPERATOR_NAMESPACE=" + ns, "OPERATOR_SCOPE_NAMESPACE=" + ns},
				fmt.Sprintf("http://127.0.0.1:%d/readyz", probe))
		},
	}
	steps := []step{
		{runnerFloor, func() (result, error) { return b.brokerFloor(tag + "f") }},
		{runnerKubeFloor, func() (result, error) { return b.kubeFloor(ctx, tag+"k", false) }},
		{runnerBothFloors, func() (result, error) { return b.bothFloors(ctx, tag+"b", false) }},
		{runnerFinalizerFloors, func() (result, error) { return b.bothFloors(ctx, tag+"z", true) }},
		{runnerOrderhub, func() (result, error) { return b.runController(ctx, oh) }},
		{runnerMTO, func() (result, error) { return b.runController(ctx, mto) }},
	}
	if note := oshPythonSkip(b.oshCheckout, func() error { return oshref.CheckPython(oshref.DefaultPython) }); note != "" {
		b.logf("%s", note)
	} else {
		steps = append(steps, step{runnerOSHPython, func() (result, error) { return b.runController(ctx, b.oshPythonRun(tag+"p")) }})
	}
	return b.runSteps(steps)
}

// brokerFloor declares the set's broker objects with the fewest requests
// (2N+5: one PUT or POST each), sequentially on one connection, in a vhost
// of its own that is deleted afterwards (untimed).
func (b *bench) brokerFloor(tag string) (result, error) {
	res, cleanUp, err := b.brokerFloorKept(tag)
	cleanUp()
	return res, err
}

// brokerFloorKept is brokerFloor leaving the vhost and user in place until
// the caller runs cleanUp (never nil), so bothFloors deletes them only once
// the Kubernetes side is no longer timed.
func (b *bench) brokerFloorKept(tag string) (res result, cleanUp func(), err error) {
	cleanUp = func() {}
	n := 2*b.n + 5
	res = result{Set: setTopology, Runner: runnerFloor, Objects: n, Metrics: map[string]float64{}}
	r := b.stack.RabbitMQ
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxConnsPerHost, tr.MaxIdleConnsPerHost = 1, 1
	c, err := rabbithole.NewTLSClient(r.URL, r.User, r.Password, tr)
	if err != nil {
		return res, cleanUp, err
	}
	vh, ex := "bench-"+tag, "bench-ex-"+tag
	cleanUp = func() {
		_, _ = c.DeleteUser("bench-" + tag)
		_, _ = c.DeleteVhost(vh)
	}
	start := time.Now()
	err = func() error {
		if _, err := c.PutVhost(vh, rabbithole.VhostSettings{}); err != nil {
			return err
		}
		if _, err := c.DeclareExchange(vh, ex, rabbithole.ExchangeSettings{Type: "direct", Durable: true}); err != nil {
			return err
		}
		for i := 0; i < b.n; i++ {
			q := fmt.Sprintf("bench-%s-q%d", tag, i)
			if _, err := c.DeclareQueue(vh, q, rabbithole.QueueSettings{Durable: true}); err != nil {
				return err
			}
			if _, err := c.DeclareBinding(vh, rabbithole.BindingInfo{Source: ex, Destination: q, DestinationType: "queue", RoutingKey: q}); err != nil {
				return err
			}
		}
		if _, err := c.PutUser("bench-"+tag, rabbithole.UserSettings{Password: "bench-password", Tags: rabbithole.UserTags{"management"}}); err != nil {
			return err
		}
		if _, err := c.UpdatePermissionsIn(vh, "bench-"+tag, rabbithole.Permissions{Configure: "^bench-", Write: "^bench-", Read: "^bench-"}); err != nil {
			return err
		}
		_, err := c.PutPolicy(vh, "bench-"+tag, rabbithole.Policy{Pattern: "^bench-", ApplyTo: "queues",
			Definition: rabbithole.PolicyDefinition{"max-length": 100000}})
		return err
	}()
	if err != nil {
		return res, cleanUp, err
	}
	res.Metrics[mApplyReady] = time.Since(start).Seconds()
	res.Metrics[mBackendApply] = 1
	return res, cleanUp, nil
}

// bothFloors runs the broker floor and the Kubernetes floor at the same
// time, each with a tag of its own: a controller needs both backends to do
// their work, and on a machine whose CPUs both share, the later of the two
// is the least a controller can take. Its apply→Ready is the later of the
// two (they start together); the broker floor's clean-up waits for both.
// With finalizer the Kubernetes floor also adds a finalizer to each object
// between its create and its status write, as a controller that deletes its
// broker objects (deletionPolicy delete) must before it declares them.
func (b *bench) bothFloors(ctx context.Context, tag string, finalizer bool) (result, error) {
	res := result{Set: setTopology, Runner: runnerBothFloors, Metrics: map[string]float64{}}
	if finalizer {
		res.Runner = runnerFinalizerFloors
	}
	var kube, broker result
	var kerr, berr error
	var wg sync.WaitGroup
	wg.Add(2)
	cleanUp := func() {}
	go func() { defer wg.Done(); broker, cleanUp, berr = b.brokerFloorKept(tag + "f") }()
	go func() { defer wg.Done(); kube, kerr = b.kubeFloor(ctx, tag+"k", finalizer) }()
	wg.Wait()
	cleanUp()
	if err := errors.Join(berr, kerr); err != nil {
		return res, err
	}
	res.Objects = kube.Objects
	bs, ks := broker.Metrics[mApplyReady], kube.Metrics[mApplyReady]
	res.Metrics[mApplyReady] = max(bs, ks)
	res.Metrics[mBackendApply] = broker.Metrics[mBackendApply]
	res.Metrics[mKubeWrites] = kube.Metrics[mKubeWrites]
	res.Note = fmt.Sprintf("at once: broker %.1f s, Kubernetes %.1f s", bs, ks)
	return res, nil
}

// kubeFloor creates orderhub's objects of the set with a plain client and
// writes each one's status once (Ready=True), with no controller running:
// what the apiserver alone costs. Deletion is timed too (no finalizers).
// With finalizer each object also gets orderhub's finalizer by a merge
// patch between the two writes (3 writes per object), and the objects are
// then removed untimed, their finalizers dropped first.
func (b *bench) kubeFloor(ctx context.Context, tag string, finalizer bool) (result, error) {
	objs := topologySet(orderhubTopologyAPI, map[string]any{"name": benchClusterName}, b.n, tag)
	res := result{Set: setTopology, Runner: runnerKubeFloor, Objects: len(objs), Metrics: map[string]float64{}}
	ns, err := b.newNamespace(ctx, "bench-kube-floor")
	if err != nil {
		return res, err
	}
	for _, o := range objs {
		o.SetNamespace(ns)
	}
	start := time.Now()
	err = parallel(objs, func(o *unstructured.Unstructured) error {
		c := o.DeepCopy()
		if err := b.kube.Create(ctx, c); err != nil {
			return err
		}
		if finalizer {
			before := c.DeepCopy()
			c.SetFinalizers([]string{rmqv1.Finalizer})
			if err := b.kube.Patch(ctx, c, client.MergeFrom(before)); err != nil {
				return err
			}
		}
		_ = unstructured.SetNestedSlice(c.Object, []any{map[string]any{
			"type": "Ready", "status": "True", "reason": "Bench", "message": "written by hack/bench",
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339), "observedGeneration": c.GetGeneration(),
		}}, "status", "conditions")
		return b.kube.Status().Update(ctx, c)
	})
	if err != nil {
		return res, err
	}
	res.Metrics[mApplyReady] = time.Since(start).Seconds()
	res.Metrics[mKubeWrites] = 2
	if finalizer {
		// Untimed: the row is not about deletion (bothFloors keeps none).
		res.Metrics[mKubeWrites] = 3
		return res, b.dropFinalizers(ctx, ns, objs, b.timeout)
	}
	start = time.Now()
	if err := b.deleteAll(ctx, ns, objs, b.timeout, 0); err != nil {
		return res, err
	}
	res.Metrics[mDelete] = time.Since(start).Seconds()
	return res, nil
}
