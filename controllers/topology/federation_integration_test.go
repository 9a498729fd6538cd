//go:build integration

package topology

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// amqpURI is the AMQP URI of the suite's broker and vhost.
func amqpURI(vhost string) string {
	return fmt.Sprintf("amqp://%s:%s@127.0.0.1:%d/%s", stack.RabbitMQ.User, stack.RabbitMQ.Password,
		stack.RabbitMQ.AMQPPort, url.PathEscape(vhost))
}

// federationWithSecret creates in ns a Secret holding uri under the key
// uri and a Federation of the root vhost naming it.
func federationWithSecret(t *testing.T, ns, uri string) (*corev1.Secret, *rmqv1.Federation) {
	t.Helper()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: uniq("fed-uri")},
		StringData: map[string]string{FederationSecretKeyURI: uri}}
	create(t, secret)
	f := &rmqv1.Federation{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: uniq("fed")}, Spec: rmqv1.FederationSpec{
		Name: uniq("upstream"), URISecret: &corev1.LocalObjectReference{Name: secret.Name},
		AckMode: "on-publish", MaxHops: 2, RabbitmqClusterReference: ref()}}
	create(t, f)
	waitReady(t, f)
	return secret, f
}

// The federation upstream a Federation declares is repaired by the resync
// (docs/topology.md, "Reconciliation") when it is deleted or changed in the
// broker, with a DriftRepaired event naming it.
func TestIntegration_Topology_FederationDriftIsRepaired(t *testing.T) {
	_, f := federationWithSecret(t, suiteNS, amqpURI("/"))
	name := f.Spec.Name
	if _, err := admin.DeleteFederationUpstream("/", name); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the deleted upstream is repaired and says so", func() error {
		return repairEvent(f, fmt.Sprintf("federation upstream %q in vhost \"/\" was missing", name))
	})
	// A second DriftRepaired event of the object joins the first one's
	// series (events.k8s.io keeps the first note), so the change is seen in
	// the broker and in the repair counter.
	repairs := testenv.CounterSum(t, "orderhub_topology_repairs_total", map[string]string{"kind": "Federation"})
	changed := rabbithole.FederationDefinition{Uri: []string{amqpURI("/")}, AckMode: "no-ack", MaxHops: 2}
	if _, err := admin.PutFederationUpstream("/", name, changed); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the changed upstream is repaired and counted", func() error {
		u, err := admin.GetFederationUpstream("/", name)
		if err != nil {
			return err
		}
		if u.Definition.AckMode != "on-publish" || u.Definition.MaxHops != 2 {
			return fmt.Errorf("definition %+v", u.Definition)
		}
		if got := testenv.CounterSum(t, "orderhub_topology_repairs_total", map[string]string{"kind": "Federation"}); got < repairs+1 {
			return fmt.Errorf("Federation repairs counted %v, was %v", got, repairs)
		}
		return nil
	})
}

// A change of a Federation's uriSecret reaches the broker through the
// Secret watch, long before any resync (these controllers resync every 10
// minutes); a Secret without the key uri is Ready=False naming it.
func TestIntegration_Topology_FederationFollowsItsSecret(t *testing.T) {
	ns := startOwnControllers(t, "topology-federation", Options{ResyncPeriod: 10 * time.Minute}, nil)
	secret, f := federationWithSecret(t, ns, amqpURI("/"))
	both := amqpURI("/") + "," + amqpURI("/") + "?heartbeat=5"
	secret.StringData = map[string]string{FederationSecretKeyURI: both}
	if err := kube.Update(bg, secret); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the upstream has the Secret's new URIs", func() error {
		u, err := admin.GetFederationUpstream("/", f.Spec.Name)
		if err != nil {
			return err
		}
		if got := strings.Join(u.Definition.Uri, ","); got != both {
			return fmt.Errorf("uri %s", got)
		}
		return nil
	})

	secret.StringData, secret.Data = nil, map[string][]byte{"other": []byte("x")}
	if err := kube.Update(bg, secret); err != nil {
		t.Fatal(err)
	}
	eventually(t, "Ready=False names the missing key", func() error {
		c, err := readyStatus(f)
		if err != nil || c == nil {
			return fmt.Errorf("%v, %v", c, err)
		}
		if c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, `has no "uri" key`) {
			return fmt.Errorf("Ready=%s: %s", c.Status, c.Message)
		}
		return nil
	})
}

// Admission refuses a Federation without uriSecret and one with an ackMode
// outside upstream's enum (api/v1beta1/federation_types.go), naming the
// field.
func TestIntegration_Topology_FederationBadSpecIsRefused(t *testing.T) {
	for field, spec := range map[string]rmqv1.FederationSpec{
		"spec.uriSecret": {},
		"spec.ackMode":   {URISecret: &corev1.LocalObjectReference{Name: "s"}, AckMode: "sometimes"},
		"spec.queueType": {URISecret: &corev1.LocalObjectReference{Name: "s"}, QueueType: "stream"},
	} {
		spec.Name, spec.RabbitmqClusterReference = uniq("bad"), ref()
		err := kube.Create(bg, &rmqv1.Federation{ObjectMeta: meta_(uniq("bad-fed")), Spec: spec})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), field) {
			t.Errorf("a Federation with a bad %s: got %v, want Invalid naming it", field, err)
		}
	}
}

// publishTo publishes one message to exchange in vhost through the
// management API; routed reports whether the broker routed it.
func publishTo(vhost, exchange string) (routed bool, err error) {
	r := stack.RabbitMQ
	body := `{"properties":{},"routing_key":"","payload":"m","payload_encoding":"string"}`
	req, err := http.NewRequest(http.MethodPost, r.URL+"/api/exchanges/"+url.PathEscape(vhost)+"/"+url.PathEscape(exchange)+"/publish",
		strings.NewReader(body))
	if err != nil {
		return false, err
	}
	req.SetBasicAuth(r.User, r.Password)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("publish to %s in %s: %s", exchange, vhost, resp.Status)
	}
	var out struct{ Routed bool }
	err = json.NewDecoder(resp.Body).Decode(&out)
	return out.Routed, err
}
