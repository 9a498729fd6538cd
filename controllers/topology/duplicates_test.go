package topology

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/declaration"
)

func TestDuplicateConflict(t *testing.T) {
	t.Parallel()
	t0 := metav1.NewTime(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Second))
	nova := declaration.Of{Namespace: "openstack", Name: "nova", UID: "1", Created: t0}
	cinder := declaration.Of{Namespace: "openstack", Name: "cinder", UID: "2", Created: t1}
	elsewhere := declaration.Of{Namespace: "other", Name: "aaa", UID: "3", Created: t1}
	for _, tc := range []struct {
		name   string
		self   declaration.Of
		others []declaration.Of
		want   []string // substrings of the message; nil: self declares
	}{
		{"alone", nova, nil, nil},
		{"the oldest declares", nova, []declaration.Of{cinder}, nil},
		{"a younger one names the oldest", cinder, []declaration.Of{nova},
			[]string{"Permission cinder declares the same RabbitMQ permissions of user", "as Permission nova, the oldest", "while nova exists"}},
		{"same second: namespace then name", elsewhere, []declaration.Of{cinder}, []string{"as Permission openstack/cinder"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := duplicateConflict("Permission", `permissions of user "u" in vhost "/"`, tc.self, tc.others)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("conflict %v, want none", err)
				}
				return
			}
			if !isDuplicate(err) {
				t.Fatalf("err = %v, want a duplicate", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not contain %q", err, w)
				}
			}
		})
	}
}

// The keys say which objects are one broker object.
func TestDeclaresKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := func(vhost, name string) string {
		k, _, _ := newQueueActuator(nil).declares(ctx, nil, &rmqv1.Queue{Spec: rmqv1.QueueSpec{Vhost: vhost, Name: name}})
		return k
	}
	if q("", "a") != q("/", "a") || q("/", "a") == q("/x", "a") || q("/", "a") == q("/", "b") {
		t.Error("queues: an empty vhost is /; another vhost or name is another queue")
	}
	e, _, _ := exchangeActuator(nil).declares(ctx, nil, &rmqv1.Exchange{Spec: rmqv1.ExchangeSpec{Name: "a"}})
	if e == q("/", "a") {
		t.Error("an exchange and a queue of one name are two objects")
	}
	b := func(args, dt string) string {
		k, _, _ := bindingActuator{}.declares(ctx, nil, &rmqv1.Binding{Spec: rmqv1.BindingSpec{Source: "s", Destination: "d",
			DestinationType: dt, RoutingKey: "k", Arguments: &runtime.RawExtension{Raw: []byte(args)}}})
		return k
	}
	if b(`{"a":1,"b":"x"}`, "queue") != b(`{ "b":"x", "a":1 }`, "queue") {
		t.Error("binding arguments in another order or spacing are the same binding")
	}
	if b(`{"a":1}`, "queue") == b(`{"a":2}`, "queue") || b(`{}`, "queue") == b(`{}`, "exchange") || b("", "") != b(`{}`, "exchange") {
		t.Error("binding arguments and destination types tell bindings apart; none and {} are one")
	}
}
