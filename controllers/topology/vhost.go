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
	have, err := a.limits(d.Name)
	if err != nil {
		return err
	}
	return applyLimits(have, d.Limits,
		func(k string, v int) error {
			return rabbitmq.Done(a.broker.PutVhostLimits(d.Name, rabbithole.VhostLimitsValues{k: v}))
		},
		func(k string) error {
			return rabbitmq.Done(a.broker.DeleteVhostLimits(d.Name, rabbithole.VhostLimits{k}))
		})
}

// limits is GET /api/vhost-limits/{name} as one map.
func (a vhostActuator) limits(name string) (map[string]int, error) {
	listed, err := a.broker.GetVhostLimits(name)
	return mergedLimits(listed, func(l rabbithole.VhostLimitsInfo) map[string]int { return l.Value }), err
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

// mergedLimits merges the limits of a vhost's or user's limit listing.
func mergedLimits[L any](listed []L, values func(L) map[string]int) map[string]int {
	out := map[string]int{}
	for _, l := range listed {
		for k, v := range values(l) {
			out[k] = v
		}
	}
	return out
}

// applyLimits makes the broker's limits have equal want (limitChanges): one
// put per limit missing or different, then one del per limit not desired;
// the first error stops it.
func applyLimits(have, want map[string]int, put func(k string, v int) error, del func(k string) error) error {
	puts, dels := limitChanges(have, want)
	for k, v := range puts {
		if err := put(k, v); err != nil {
			return err
		}
	}
	for _, k := range dels {
		if err := del(k); err != nil {
			return err
		}
	}
	return nil
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
