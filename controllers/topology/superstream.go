package topology

import (
	"context"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// superStreamActuator writes a SuperStream as the Exchange, Queue and
// Binding resources upstream's controller writes
// (github.com/rabbitmq/messaging-topology-operator,
// internal/controller/super_stream_controller.go and
// internal/managedresource): those kinds' own controllers declare them in
// the broker. The resources are owned by the SuperStream (controller
// reference), so the garbage collector deletes them with it.
type superStreamActuator struct {
	kube   client.Client
	scheme *runtime.Scheme
}

// superStreamDesired is what the owned resources are built from.
type superStreamDesired struct {
	Vhost, Name string
	RoutingKeys []string
	Cluster     rmqv1.RabbitmqClusterReference
}

// Resolve computes the routing keys (superStreamRoutingKeys) and records the
// partition stream names in status.partitions.
func (superStreamActuator) Resolve(_ context.Context, o *rmqv1.SuperStream) (any, error) {
	keys, err := superStreamRoutingKeys(o.Spec.Partitions, o.Spec.RoutingKeys)
	if err != nil {
		return nil, err
	}
	d := superStreamDesired{Vhost: vhostOrRoot(o.Spec.Vhost), Name: o.Name, RoutingKeys: keys,
		Cluster: rmqv1.RabbitmqClusterReference{Name: o.Spec.RabbitmqClusterReference.Name, Namespace: o.Spec.RabbitmqClusterReference.Namespace}}
	o.Status.Partitions = nil
	for _, k := range keys {
		o.Status.Partitions = append(o.Status.Partitions, superStreamPartition(o.Name, k))
	}
	return d, nil
}

// superStreamRoutingKeys are keys, or the indexes 0 … partitions-1 when keys
// is empty (upstream's generateRoutingKeys). Error: a count other than
// partitions (admission refuses it first).
func superStreamRoutingKeys(partitions int, keys []string) ([]string, error) {
	if len(keys) == 0 {
		for i := range partitions {
			keys = append(keys, strconv.Itoa(i))
		}
		return keys, nil
	}
	if len(keys) != partitions {
		return nil, fmt.Errorf("expected number of routing keys (%d) to match number of partitions (%d): list one routing key per partition",
			len(keys), partitions)
	}
	return keys, nil
}

// superStreamPartition is the stream of routing key key:
// <superstream>-<key> (upstream's RoutingKeyToPartitionName).
func superStreamPartition(name, key string) string { return name + "-" + key }

// Declare creates or updates every owned resource; a refusal of the
// apiserver (for example a resource of that name owned by another object)
// is the error.
func (a superStreamActuator) Declare(ctx context.Context, o *rmqv1.SuperStream, desired any) error {
	for _, c := range superStreamChildren(o, desired.(superStreamDesired)) {
		if _, err := controllerutil.CreateOrUpdate(ctx, a.kube, c.obj, func() error { return a.own(o, c) }); err != nil {
			return fmt.Errorf("%s: %w", c.what, err)
		}
	}
	return nil
}

// own applies c's spec to c.obj and makes o its controller.
func (a superStreamActuator) own(o *rmqv1.SuperStream, c superStreamChild) error {
	c.apply(c.obj)
	return controllerutil.SetControllerReference(o, c.obj, a.scheme)
}

// Delete sends nothing: the owned resources are collected with the
// SuperStream and leave the broker by their own deletionPolicy.
func (superStreamActuator) Delete(context.Context, *rmqv1.SuperStream) error { return nil }

func (superStreamActuator) indexKey(o *rmqv1.SuperStream) string {
	return inVhost("super-stream", o.Spec.Vhost, o.Name)
}

func (a superStreamActuator) declares(_ context.Context, _ client.Reader, o *rmqv1.SuperStream) (string, string, error) {
	return a.indexKey(o), namedInVhost("super stream", o.Spec.Vhost, o.Name), nil
}

// Drift reads the owned resources and names each one missing or changed;
// their broker objects are their own controllers' to repair.
func (a superStreamActuator) Drift(ctx context.Context, o *rmqv1.SuperStream, desired any) ([]string, error) {
	var out []string
	for _, c := range superStreamChildren(o, desired.(superStreamDesired)) {
		if err := a.kube.Get(ctx, client.ObjectKeyFromObject(c.obj), c.obj); err != nil {
			if client.IgnoreNotFound(err) != nil {
				return nil, err
			}
			out = append(out, c.what+" was missing")
			continue
		}
		before := c.obj.DeepCopyObject()
		if err := a.own(o, c); err != nil {
			return nil, err
		}
		if !equality.Semantic.DeepEqual(before, c.obj) {
			out = append(out, c.what+" differed")
		}
	}
	return out, nil
}
