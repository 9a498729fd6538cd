package consumers

import (
	"context"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// FieldOwner is the field manager of the hub's stamp patches.
const FieldOwner = "orderhub-consumers"

// +kubebuilder:rbac:groups=apps,resources=deployments;statefulsets;daemonsets,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

// Target is a delivered Secret and the credential generation it now carries.
type Target struct {
	// Namespace and Secret name the delivered Secret on the order's cluster.
	Namespace, Secret string
	// Kind and Order name the delivering order (StampValue).
	Kind, Order string
	Generation  int64
}

// Result is what one Sync saw and did.
type Result struct {
	// Statuses lists the consumers (at most c5c3v1alpha1.MaxConsumers).
	Statuses []c5c3v1alpha1.ConsumerStatus
	// Stamped is the workload stamped by this Sync, "<Kind>/<name>"; "" for none.
	Stamped string
	// Pending counts the opted-in consumers not rolled out at the generation.
	Pending int
}

// Sync reads the workloads of t.Namespace through c (the order's cluster),
// and stamps the next opted-in consumer of t.Secret with the generation
// (Decide). Errors are the API server's, wrapped with what was read or
// written.
func Sync(ctx context.Context, c client.Client, t Target) (Result, error) {
	want := StampValue(t.Kind, t.Order, t.Generation)
	ws, byName, err := observe(ctx, c, t)
	if err != nil {
		return Result{}, err
	}
	p := Decide(ws, want)
	var res Result
	if p.Stamp >= 0 {
		w := p.Workloads[p.Stamp]
		if err := stamp(ctx, c, byName[w.Kind+"/"+w.Name], w.Kind, StampKey(t.Secret), want); err != nil {
			return Result{}, err
		}
		res.Stamped = w.Kind + "/" + w.Name
	}
	for _, s := range p.Statuses {
		if s.State != c5c3v1alpha1.ConsumerNotOptedIn && s.State != c5c3v1alpha1.ConsumerRolledOut {
			res.Pending++
		}
	}
	res.Statuses = p.Statuses[:min(len(p.Statuses), c5c3v1alpha1.MaxConsumers)]
	return res, nil
}

// observe lists the Deployments, StatefulSets and DaemonSets of t.Namespace
// that consume t.Secret, keyed "<Kind>/<name>".
func observe(ctx context.Context, c client.Client, t Target) ([]Workload, map[string]client.Object, error) {
	var ns corev1.Namespace
	if err := c.Get(ctx, types.NamespacedName{Name: t.Namespace}, &ns); err != nil {
		return nil, nil, fmt.Errorf("read namespace %s for the rollout opt-in: %w", t.Namespace, err)
	}
	var deps appsv1.DeploymentList
	var sets appsv1.StatefulSetList
	var daemons appsv1.DaemonSetList
	var objs []client.Object
	for _, l := range []client.ObjectList{&deps, &sets, &daemons} {
		if err := c.List(ctx, l, client.InNamespace(t.Namespace)); err != nil {
			return nil, nil, fmt.Errorf("list the workloads of namespace %s: %w", t.Namespace, err)
		}
	}
	for i := range deps.Items {
		objs = append(objs, &deps.Items[i])
	}
	for i := range sets.Items {
		objs = append(objs, &sets.Items[i])
	}
	for i := range daemons.Items {
		objs = append(objs, &daemons.Items[i])
	}
	key := StampKey(t.Secret)
	var ws []Workload
	byName := map[string]client.Object{}
	for _, o := range objs {
		w, ok := workloadOf(o)
		if !ok || !o.GetDeletionTimestamp().IsZero() || !Consumes(w.template, t.Secret) {
			continue
		}
		ws = append(ws, Workload{Kind: w.kind, Name: o.GetName(), OptedIn: OptedIn(o.GetAnnotations(), ns.Annotations),
			Stamp: w.template.Annotations[key], RolledOut: w.rolledOut})
		byName[w.kind+"/"+o.GetName()] = o
	}
	return ws, byName, nil
}

// stamp sets annotation key to value on obj's pod template with a JSON merge
// patch that touches nothing else; the workload's controller rolls it.
func stamp(ctx context.Context, c client.Client, obj client.Object, kind, key, value string) error {
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"template": map[string]any{
		"metadata": map[string]any{"annotations": map[string]string{key: value}}}}})
	if err != nil {
		return err
	}
	if err := c.Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch), client.FieldOwner(FieldOwner)); err != nil {
		return fmt.Errorf("stamp %s %s/%s with %s: %w", kind, obj.GetNamespace(), obj.GetName(), value, err)
	}
	return nil
}

// Event reasons the delivering kinds record on the order
// (docs/reference/consumers.md, "Events").
const (
	// EventStamped (Normal): a consumer's pod template was stamped with the
	// new generation, so its controller rolls it.
	EventStamped = "ConsumerRolloutStarted"
	// EventFailed (Warning): the consumers could not be read or stamped;
	// delivery is not affected.
	EventFailed = "ConsumerRolloutFailed"
)
