package topology

import (
	"encoding/json"
	"fmt"
	"reflect"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	"k8s.io/apimachinery/pkg/runtime"
)

// arguments decodes an x-arguments or definition object; nil or empty is an
// empty map. Numbers decode as float64, the same way the broker's JSON
// listing decodes, so the two compare equal.
func arguments(raw *runtime.RawExtension) (map[string]any, error) {
	out := map[string]any{}
	if raw == nil || len(raw.Raw) == 0 {
		return out, nil
	}
	if err := json.Unmarshal(raw.Raw, &out); err != nil {
		return nil, fmt.Errorf("arguments are not a JSON object: %w", err)
	}
	if out == nil {
		out = map[string]any{}
	}
	return out, nil
}

// sameArguments compares binding arguments by their JSON values; nil and an
// empty map are equal.
func sameArguments(a, b map[string]any) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	na, err1 := normalise(a)
	nb, err2 := normalise(b)
	return err1 == nil && err2 == nil && reflect.DeepEqual(na, nb)
}

func normalise(m map[string]any) (any, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(b, &out)
	return out, err
}

// matchingBindings returns the bindings of listed that have routingKey and
// arguments: the bindings a Binding resource stands for. Only these are
// deleted, so a second binding between the same source and destination with
// another routing key or other arguments is left alone.
func matchingBindings(listed []rabbithole.BindingInfo, routingKey string, args map[string]any) []rabbithole.BindingInfo {
	var out []rabbithole.BindingInfo
	for _, b := range listed {
		if b.RoutingKey == routingKey && sameArguments(b.Arguments, args) {
			out = append(out, b)
		}
	}
	return out
}
