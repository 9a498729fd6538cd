package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"strconv"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/apply"
	"github.com/c5c3/orderhub/internal/password"
	"github.com/c5c3/orderhub/korc"
)

// child is the name of the order's child with discriminator disc.
func (p *pass) child(disc string) string { return p.prefix + disc }

// writeMintCloud applies the mint-cloud document, rebuilt on every pass from
// the user's current password (docs/reference/keystoneapplicationcredential.md,
// "Projected child names"). K-ORC creates and deletes every credential
// generation through it.
func (p *pass) writeMintCloud(ctx context.Context, r refsRead) error {
	data, err := applicationcredential.MintCloudData(p.mintParams(r))
	if err != nil {
		return fmt.Errorf("build the mint-cloud document: %w", err)
	}
	// K-ORC adds its finalizer to the document concurrently, and Deliver
	// writes with the read resourceVersion as a precondition: a Conflict is
	// retried at once rather than reported as CredentialError.
	err = retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		_, err := apply.Deliver(ctx, p.r.Local, orders.FieldOwner, apply.Secret{Namespace: p.ns,
			Name: p.child(korc.DiscMintCloud), Data: data, Labels: p.lbl})
		return err
	})
	if err != nil {
		return fmt.Errorf("write the mint-cloud document: %w", err)
	}
	return nil
}

// listCredentials lists the order's K-ORC ApplicationCredentials
// (credential-v<N>) in the plane's namespace into p.creds and p.credObjs.
// Objects whose name carries no generation are ignored. Labels no label
// value can carry (orders.UnlabelableValues) list nothing: no child was
// written with them, and the API server would refuse the selector, so the
// teardown would never release the finalizer.
func (p *pass) listCredentials(ctx context.Context) error {
	p.creds, p.credObjs = nil, map[int64]*orcv1alpha1.ApplicationCredential{}
	var list orcv1alpha1.ApplicationCredentialList
	if _, err := orders.ListChildren(ctx, p.r.Children, &list, p.ns, p.lbl); err != nil {
		return fmt.Errorf("list the order's K-ORC ApplicationCredentials: %w", err)
	}
	for i := range list.Items {
		o := &list.Items[i]
		gen, ok := applicationcredential.GenerationOfChild(p.prefix, o.Name)
		if !ok || o.Name != p.child(korc.CredentialDiscriminator(gen)) {
			continue
		}
		p.credObjs[gen] = o
		p.creds = append(p.creds, applicationcredential.Credential{Generation: gen, State: korc.StateOf(o),
			Deleting: !o.DeletionTimestamp.IsZero(), Created: o.CreationTimestamp.Time,
			PasswordGeneration: applicationcredential.MintPasswordGenerationOf(o.Annotations)})
	}
	return nil
}

// secretValue reads secret-v<gen>; ok is false when it is gone (or being
// deleted, or has no value).
func (p *pass) secretValue(ctx context.Context, gen int64) (value []byte, ok bool, err error) {
	var s corev1.Secret
	err = p.r.Local.Get(ctx, types.NamespacedName{Namespace: p.ns, Name: p.child(korc.SecretDiscriminator(gen))}, &s)
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the secret of generation %d: %w", gen, err)
	}
	v := s.Data[applicationcredential.SecretValueKey]
	return v, len(v) > 0 && s.DeletionTimestamp.IsZero(), nil
}

// createGeneration creates generation gen: its secret-v<gen> (a random
// secret, generated once) and its credential-v<gen>, an unrestricted: false
// K-ORC ApplicationCredential of the user order's K-ORC User, authenticated
// through mint-cloud, without roleRefs (it carries the roles of the
// project-scoped token), expiring at Schedule.ExpiresAt(now)
// (docs/reference/keystoneapplicationcredential.md, "Rotation"). Both are
// created, never updated: the secret must not change and K-ORC's resource spec
// is immutable. The credential is annotated with the password generation the
// mint-cloud document was built from
// (applicationcredential.AnnotationMintPasswordGeneration). gen must be new
// (applicationcredential.CreatableGeneration); a child that exists under its
// name is kept only when it is this order's and not being deleted (an earlier
// pass created it and the cache lags), otherwise it is an error
// (applicationcredential.AdoptableChild), never a silent success.
func (p *pass) createGeneration(ctx context.Context, gen int64) error {
	if err := applicationcredential.CreatableGeneration(gen, p.st.CredentialGeneration, p.st.PreviousCredentialGeneration); err != nil {
		return fmt.Errorf("create generation %d: %w", gen, err)
	}
	secretName := p.child(korc.SecretDiscriminator(gen))
	if _, ok, err := p.secretValue(ctx, gen); err != nil {
		return err
	} else if !ok {
		v := password.New()
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: secretName, Namespace: p.ns, Labels: p.lbl},
			Type: corev1.SecretTypeOpaque, Data: map[string][]byte{applicationcredential.SecretValueKey: v}}
		if err := p.r.Local.Create(ctx, s, client.FieldOwner(orders.FieldOwner)); apierrors.IsAlreadyExists(err) {
			if err := p.adoptable(ctx, &corev1.Secret{}, secretName); err != nil {
				return err
			}
		} else if err != nil {
			return fmt.Errorf("create the secret of generation %d: %w", gen, err)
		}
	}
	var expires *metav1.Time
	if t := p.schedule.ExpiresAt(p.now); t != nil {
		expires = ptr.To(metav1.NewTime(*t))
	}
	desc := fmt.Sprintf("KeystoneApplicationCredential %s/%s generation %d", p.ac.Namespace, p.ac.Name, gen)
	if p.ord.OnTargetCluster() {
		desc = fmt.Sprintf("KeystoneApplicationCredential %s/%s on cluster %s generation %d", p.ac.Namespace, p.ac.Name, p.ord.Cluster, gen)
	}
	if len(desc) > 255 {
		desc = desc[:255]
	}
	cred := &orcv1alpha1.ApplicationCredential{
		ObjectMeta: metav1.ObjectMeta{Name: p.child(korc.CredentialDiscriminator(gen)), Namespace: p.ns, Labels: p.lbl,
			Annotations: map[string]string{applicationcredential.AnnotationMintPasswordGeneration: strconv.FormatInt(p.passwordGen, 10)}},
		Spec: orcv1alpha1.ApplicationCredentialSpec{
			ManagementPolicy: orcv1alpha1.ManagementPolicyManaged,
			CloudCredentialsRef: orcv1alpha1.CloudCredentialsReference{SecretName: p.child(korc.DiscMintCloud),
				CloudName: applicationcredential.MintCloudName},
			Resource: &orcv1alpha1.ApplicationCredentialResourceSpec{
				Description:  &desc,
				UserRef:      orcv1alpha1.KubernetesNameRef(orders.UserChildName(p.ord.Cluster, p.ac.Namespace, p.ac.Spec.UserRef.Name)),
				Unrestricted: ptr.To(false),
				SecretRef:    orcv1alpha1.KubernetesNameRef(secretName),
				ExpiresAt:    expires,
			},
		},
	}
	if err := p.r.Local.Create(ctx, cred, client.FieldOwner(orders.FieldOwner)); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return p.adoptable(ctx, &orcv1alpha1.ApplicationCredential{}, cred.Name)
		}
		return fmt.Errorf("create the K-ORC ApplicationCredential of generation %d: %w", gen, err)
	}
	p.creds = append(p.creds, applicationcredential.Credential{Generation: gen, State: korc.State{Phase: korc.PhasePending}})
	return nil
}

// adoptable reads the child name of obj's kind that a create found existing
// and checks it may stand for the one being created
// (applicationcredential.AdoptableChild). A child the cache does not show
// yet was created by an earlier pass of this order (every other writer's
// object would be cached as well): it is kept.
func (p *pass) adoptable(ctx context.Context, obj client.Object, name string) error {
	err := p.r.Local.Get(ctx, types.NamespacedName{Namespace: p.ns, Name: name}, obj)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the existing %T %s/%s: %w", obj, p.ns, name, err)
	}
	return applicationcredential.AdoptableChild(fmt.Sprintf("%T", obj), p.ns+"/"+name, obj.GetLabels(), p.lbl,
		!obj.GetDeletionTimestamp().IsZero())
}

// deleteGeneration deletes credential-v<gen> (K-ORC deletes the Keystone
// credential) and secret-v<gen>.
func (p *pass) deleteGeneration(ctx context.Context, gen int64) error {
	if err := p.deleteLocal(ctx, &orcv1alpha1.ApplicationCredential{}, p.child(korc.CredentialDiscriminator(gen))); err != nil {
		return err
	}
	return p.deleteLocal(ctx, &corev1.Secret{}, p.child(korc.SecretDiscriminator(gen)))
}

// deleteLocal deletes the child name of obj's kind in the plane's namespace;
// NotFound is success.
func (p *pass) deleteLocal(ctx context.Context, obj client.Object, name string) error {
	obj.SetNamespace(p.ns)
	obj.SetName(name)
	if err := p.r.Local.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %T %s/%s: %w", obj, p.ns, name, err)
	}
	return nil
}

// clearLatchedTransportErrors removes K-ORC's Progressing condition from
// every listed credential whose terminal error is a latched transport error
// (applicationcredential.LatchedTransportError), so K-ORC retries the
// create: K-ORC skips an object whose Progressing is False at its current
// generation, and the resource spec cannot be changed to bump it. It
// returns the first write failure (TransportErrorRetryFailed).
func (p *pass) clearLatchedTransportErrors(ctx context.Context) error {
	for gen, o := range p.credObjs {
		if !o.DeletionTimestamp.IsZero() || !applicationcredential.LatchedTransportError(korc.StateOf(o)) {
			continue
		}
		base := o.DeepCopy()
		meta.RemoveStatusCondition(&o.Status.Conditions, orcv1alpha1.ConditionProgressing)
		if err := p.r.Local.Status().Patch(ctx, o, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
			return fmt.Errorf("generation %d: %w", gen, err)
		}
		p.event(corev1.EventTypeWarning, EventTransportErrorCleared, "Retry",
			"K-ORC latched a transport error on generation %d; cleared it so K-ORC retries the create", gen)
	}
	return nil
}

// expiresAtOf is the Keystone expiry of credential o: its
// spec.resource.expiresAt, which K-ORC sends on create; nil for none.
func expiresAtOf(o *orcv1alpha1.ApplicationCredential) *time.Time {
	if o == nil || o.Spec.Resource == nil || o.Spec.Resource.ExpiresAt == nil {
		return nil
	}
	t := o.Spec.Resource.ExpiresAt.Time
	return &t
}
