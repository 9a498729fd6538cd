package keystoneservice

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/apply"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/delivery/eso"
	"github.com/c5c3/orderhub/delivery/openbao"
	"github.com/c5c3/orderhub/korc"
)

// annotationSourceGeneration records on the source Secret which password
// generation it carries, so the Keystone check runs once per generation.
const annotationSourceGeneration = "c5c3.io/password-generation"

// ConsumerCloud is the consumer Secret's clouds.yaml, without a CA bundle
// (docs/reference/keystoneservice.md, "Consumer Secret contract").
func ConsumerCloud(ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane, domain string, password []byte) cloudsyaml.Cloud {
	a := ks.Spec.Account
	return cloudsyaml.Password(cloudsyaml.PasswordParams{
		AuthURL: controlplane.AuthURL(cp), Username: ks.EffectiveUserName(), Password: string(password),
		UserDomainName: domain, ProjectName: string(a.Project.Name), ProjectDomainName: domain,
		Region: controlplane.Region(cp), Interface: controlplane.EndpointType(cp)})
}

// deliver moves the password generation Keystone applied to the consumer
// Secret: Keystone check, source Secret, PushSecret, ExternalSecret, all in
// the registration's namespace (docs/reference/keystoneservice.md, "Consumer
// Secret contract").
func (p *accountPass) deliver(ctx context.Context, pwSecret *corev1.Secret, domain string) error {
	gen := p.o.Deliverable
	pw := pwSecret.Data[korc.PasswordKey]
	if len(pw) == 0 {
		return fmt.Errorf("password generation %d: the Secret %s/%s has no %s key", gen, pwSecret.Namespace, pwSecret.Name, korc.PasswordKey)
	}
	p.o.StoreReady, p.o.StoreMessage = orders.StoreReadyIn(ctx, p.r.client, p.cp, p.ks.Namespace)
	doc, err := cloudsyaml.Render(p.ks.Name, ConsumerCloud(p.ks, p.cp, domain, pw))
	if err != nil {
		return err
	}
	data := map[string][]byte{openbao.PropertyPassword: pw, openbao.PropertyCloudsYAML: doc}
	if ok, err := p.source(ctx, data, domain); err != nil || !ok || !p.o.StoreReady {
		return err
	}
	path, err := openbao.ServiceAccountCredentialsPath(p.ks.Namespace, p.ks.Name)
	if err != nil {
		return err
	}
	hash := eso.ContentHash(data)
	push, err := p.backup(ctx, path, hash)
	if err != nil || !p.o.Pushed {
		return err
	}
	// A consumer Secret the registration does not own is never taken over (DeliveryRefused).
	if p.o.Refused, err = p.foreignConsumer(ctx); err != nil || p.o.Refused != nil {
		return err
	}
	return p.consumer(ctx, path, hash, push, data)
}

// source writes the source Secret, switched only to a password Keystone
// accepts: ok is false when Keystone refused it (p.o.PasswordRejected).
func (p *accountPass) source(ctx context.Context, data map[string][]byte, domain string) (ok bool, err error) {
	gen, pw, ns, sourceName := p.o.Deliverable, data[openbao.PropertyPassword], p.ks.Namespace, p.name(korc.DiscSource)
	var src corev1.Secret
	err = p.r.client.Get(ctx, types.NamespacedName{Namespace: ns, Name: sourceName}, &src)
	if err != nil && !apierrors.IsNotFound(err) {
		return false, err
	}
	if cur, _ := strconv.ParseInt(src.Annotations[annotationSourceGeneration], 10, 64); cur != gen || !bytes.Equal(src.Data[openbao.PropertyPassword], pw) {
		// A project-scoped token needs a role on the project; without
		// declared roles only the password itself can be checked.
		tr := controlplane.TokenRequest{AuthURL: controlplane.AuthURL(p.cp), User: p.ks.EffectiveUserName(),
			Password: string(pw), Domain: domain, Region: controlplane.Region(p.cp),
			Interface: controlplane.EndpointType(p.cp), CABundle: p.caBundle(ctx)}
		if len(p.ks.Spec.Account.Roles) > 0 {
			tr.Project = string(p.ks.Spec.Account.Project.Name)
		}
		if err := p.r.verifier.Verify(ctx, tr); err != nil {
			p.o.PasswordRejected = err
			return false, nil
		}
	}
	owner := ownerRef(p.ks)
	_, err = apply.Deliver(ctx, p.r.client, ControllerName, apply.Secret{Namespace: ns, Name: sourceName, Data: data,
		Labels: p.lbl, Owner: &owner, Annotations: map[string]string{annotationSourceGeneration: strconv.FormatInt(gen, 10)}})
	return err == nil, err
}

// backup applies the PushSecret of the source Secret to OpenBao path
// (forced by the content hash) and records whether ESO pushed it.
func (p *accountPass) backup(ctx context.Context, path, hash string) (*unstructured.Unstructured, error) {
	store, storeKind := orders.StoreOf(p.cp)
	push, err := eso.PushSecret{Name: p.name(korc.DiscBackup), Namespace: p.ks.Namespace, Labels: p.lbl,
		Annotations: map[string]string{eso.AnnotationContentHash: hash}, StoreName: store, StoreKind: storeKind,
		SourceSecretName: p.name(korc.DiscSource), Data: []eso.PushData{
			{SecretKey: openbao.PropertyPassword, RemoteKey: path, Property: openbao.PropertyPassword},
			{SecretKey: openbao.PropertyCloudsYAML, RemoteKey: path, Property: openbao.PropertyCloudsYAML}},
	}.Build()
	if err != nil {
		return nil, err
	}
	push.SetOwnerReferences([]metav1.OwnerReference{ownerRef(p.ks)})
	if err := eso.Apply(ctx, p.r.client, ControllerName, push); err != nil {
		return nil, err
	}
	p.o.Pushed = eso.IsReadyAndCurrent(push) &&
		eso.IsPushed(push, storeKind, store, path, openbao.PropertyPassword) &&
		eso.IsPushed(push, storeKind, store, path, openbao.PropertyCloudsYAML)
	if !p.o.Pushed {
		p.o.PushMessage = orders.ESOMessage(push)
	}
	return push, nil
}

// consumer applies the ExternalSecret that materializes <name>-credentials
// from path (forced by the content hash and the push's synced version) and
// compares what arrived with data.
func (p *accountPass) consumer(ctx context.Context, path, hash string, push *unstructured.Unstructured, data map[string][]byte) error {
	store, storeKind := orders.StoreOf(p.cp)
	name := ConsumerSecretName(p.ks)
	es, err := eso.ExternalSecret{Name: p.name(korc.DiscDelivery), Namespace: p.ks.Namespace, Labels: p.lbl,
		Annotations: map[string]string{eso.AnnotationForceSync: eso.ForceSyncValue(hash, eso.SyncedResourceVersion(push))},
		StoreName:   store, StoreKind: storeKind, TargetName: name,
		Data: []eso.ExternalData{
			{SecretKey: openbao.PropertyPassword, RemoteKey: path, Property: openbao.PropertyPassword},
			{SecretKey: openbao.PropertyCloudsYAML, RemoteKey: path, Property: openbao.PropertyCloudsYAML}},
		Template: &eso.Template{Labels: p.lbl},
	}.Build()
	if err != nil {
		return err
	}
	es.SetOwnerReferences([]metav1.OwnerReference{ownerRef(p.ks)})
	if err := eso.Apply(ctx, p.r.client, ControllerName, es); err != nil {
		return err
	}
	var got corev1.Secret
	err = p.r.client.Get(ctx, types.NamespacedName{Namespace: p.ks.Namespace, Name: name}, &got)
	switch {
	case apierrors.IsNotFound(err):
		p.o.DeliveryMessage = "ESO has not created " + name + " yet: " + orders.ESOMessage(es)
	case err != nil:
		return err
	case !bytes.Equal(got.Data[openbao.PropertyPassword], data[openbao.PropertyPassword]) ||
		!bytes.Equal(got.Data[openbao.PropertyCloudsYAML], data[openbao.PropertyCloudsYAML]):
		p.o.DeliveryMessage = "ESO has not synced it yet: " + orders.ESOMessage(es)
	default:
		p.o.Delivered = true
		p.recordDelivered(p.o.Deliverable)
		p.rollConsumers(ctx, p.o.Deliverable)
	}
	return nil
}

// foreignConsumer returns an *apply.NotOwnedError when the consumer Secret
// exists and is not controlled by the delivery ExternalSecret (name and UID).
// Errors: a Kubernetes read failure.
func (p *accountPass) foreignConsumer(ctx context.Context) (refusal, err error) {
	ns, name, esName := p.ks.Namespace, ConsumerSecretName(p.ks), p.name(korc.DiscDelivery)
	var s corev1.Secret
	if err := p.r.client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &s); apierrors.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	refused := func(why string) *apply.NotOwnedError {
		return &apply.NotOwnedError{Namespace: ns, Name: name, Reason: why}
	}
	ref := metav1.GetControllerOfNoCopy(&s)
	if ref == nil {
		return refused("it has no controller owner reference"), nil
	}
	if ref.Kind != eso.KindExternalSecret || ref.Name != esName {
		return refused(fmt.Sprintf("its controller is %s %s (uid %s)", ref.Kind, ref.Name, ref.UID)), nil
	}
	es := eso.New(eso.ExternalSecretGVK)
	err = p.r.client.Get(ctx, types.NamespacedName{Namespace: ns, Name: esName}, es)
	switch {
	case apierrors.IsNotFound(err):
		return refused(fmt.Sprintf("its controller, ExternalSecret %s (uid %s), does not exist", ref.Name, ref.UID)), nil
	case err != nil:
		return nil, err
	case es.GetUID() != ref.UID:
		return refused(fmt.Sprintf("its controller is ExternalSecret %s uid %s, not the registration's (uid %s)", ref.Name, ref.UID, es.GetUID())), nil
	}
	return nil, nil
}

// caBundle is the plane's CA bundle for the Keystone check (External mode).
// A failed read checks without one.
func (p *accountPass) caBundle(ctx context.Context) []byte {
	ca, _, _ := controlplane.ReadCABundle(ctx, p.r.client, p.cp)
	return ca
}

func ownerRef(ks *c5c3v1alpha1.KeystoneService) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: c5c3v1alpha1.GroupVersion.String(), Kind: "KeystoneService",
		Name: ks.Name, UID: ks.UID}
}
