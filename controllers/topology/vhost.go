package topology

import (
	"context"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// vhostActuator declares a Vhost: PUT /api/vhosts/{name}, then its limits.
type vhostActuator struct{ broker *rabbithole.Client }

type vhostDesired struct {
	Name     string
	Settings rabbithole.VhostSettings
	Limits   map[string]int
}

func (vhostActuator) Resolve(_ context.Context, o *rmqv1.Vhost) (any, error) {
	d := vhostDesired{Name: o.Spec.Name, Settings: rabbithole.VhostSettings{
		Tags: o.Spec.Tags, DefaultQueueType: o.Spec.DefaultQueueType, Tracing: o.Spec.Tracing}}
	if l := o.Spec.Limits; l != nil {
		d.Limits = limitValues(map[string]*int32{"max-connections": l.Connections, "max-queues": l.Queues})
	}
	return d, nil
}

func (a vhostActuator) Declare(_ context.Context, _ *rmqv1.Vhost, desired any) error {
	d := desired.(vhostDesired)
	if err := rabbitmq.Done(a.broker.PutVhost(d.Name, d.Settings)); err != nil {
		return err
	}
	current, err := a.broker.GetVhostLimits(d.Name)
	if err != nil {
		return err
	}
	have := map[string]int{}
	for _, c := range current {
		for k, v := range c.Value {
			have[k] = v
		}
	}
	put, del := limitChanges(have, d.Limits)
	for k, v := range put {
		if err := rabbitmq.Done(a.broker.PutVhostLimits(d.Name, rabbithole.VhostLimitsValues{k: v})); err != nil {
			return err
		}
	}
	for _, k := range del {
		if err := rabbitmq.Done(a.broker.DeleteVhostLimits(d.Name, rabbithole.VhostLimits{k})); err != nil {
			return err
		}
	}
	return nil
}

func (a vhostActuator) Delete(_ context.Context, o *rmqv1.Vhost) error {
	return rabbitmq.Done(a.broker.DeleteVhost(o.Spec.Name))
}

// limitValues keeps the limits that are set.
func limitValues(in map[string]*int32) map[string]int {
	out := map[string]int{}
	for k, v := range in {
		if v != nil {
			out[k] = int(*v)
		}
	}
	return out
}

// limitChanges compares the broker's limits with the desired ones: the
// limits to put (missing or different) and the ones to delete (not desired).
func limitChanges(have, want map[string]int) (put map[string]int, del []string) {
	put = map[string]int{}
	for k, v := range want {
		if h, ok := have[k]; !ok || h != v {
			put[k] = v
		}
	}
	for k := range have {
		if _, ok := want[k]; !ok {
			del = append(del, k)
		}
	}
	return put, del
}
