//go:build integration

package topology

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// A change of a Shovel's uriSecret reaches the broker through the Secret
// watch, long before any resync (the controllers here resync every 10
// minutes).
func TestIntegration_Topology_ShovelFollowsItsSecret(t *testing.T) {
	ns := startOwnControllers(t, "topology-shovel", Options{ResyncPeriod: 10 * time.Minute}, nil)
	uri := fmt.Sprintf("amqp://%s:%s@127.0.0.1:%d/%%2F", stack.RabbitMQ.User, stack.RabbitMQ.Password, stack.RabbitMQ.AMQPPort)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: uniq("shovel-uris")},
		StringData: map[string]string{ShovelSecretKeySourceURI: uri, ShovelSecretKeyDestinationURI: uri}}
	create(t, secret)
	s := &rmqv1.Shovel{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: uniq("shovel")}, Spec: rmqv1.ShovelSpec{
		Name: uniq("shovel"), URISecret: &corev1.LocalObjectReference{Name: secret.Name},
		SourceQueue: uniq("shovel-src"), DestinationQueue: uniq("shovel-dst"), RabbitmqClusterReference: ref()}}
	create(t, s)
	waitReady(t, s)

	both := uri + "," + uri + "?heartbeat=5"
	secret.StringData = map[string]string{ShovelSecretKeySourceURI: uri, ShovelSecretKeyDestinationURI: both}
	if err := kube.Update(bg, secret); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the shovel has the Secret's new destination URIs", func() error {
		got, err := admin.GetShovel("/", s.Spec.Name)
		if err != nil {
			return err
		}
		if d := strings.Join(got.Definition.DestinationURI, ","); d != both {
			return fmt.Errorf("dest-uri %s", d)
		}
		return nil
	})
}
