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
	"github.com/c5c3/orderhub/delivery/eso"
	"github.com/c5c3/orderhub/internal/password"
	"github.com/c5c3/orderhub/korc"
)

func (p *pass) child(disc string) string { return p.prefix + disc }

// writeMintCloud applies the mint-cloud document from the user's current
// password (docs/reference/keystoneapplicationcredential.md, "Projected child names").
func (p *pass) writeMintCloud(ctx context.Context, r refsRead) error {
	data, err := applicationcredential.MintCloudData(p.mintParams(r))
	if err != nil {
		return fmt.Errorf("build the mint-cloud document: %w", err)
	}
	// K-ORC adds its finalizer concurrently: retry a Conflict at once.
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

// listCredentials lists the order's credential-v<N> children into p.creds and
// p.credObjs; unlabelable owners list nothing (orders.ListChildren).
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

// secretValue reads secret-v<gen>; ok is false when gone, deleting or empty.
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

// createGeneration creates secret-v<gen> and credential-v<gen>, expiring at
// Schedule.ExpiresAt(now) (docs/reference/keystoneapplicationcredential.md,
// "Rotation"); both are create-only. gen MUST be new
// (applicationcredential.CreatableGeneration), and an existing child is kept
// only when applicationcredential.AdoptableChild allows it.
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
	if err := p.applyScopeImports(ctx); err != nil {
		return err
	}
	cred := p.credentialChild(gen, secretName)
	if err := p.r.Local.Create(ctx, cred, client.FieldOwner(orders.FieldOwner)); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return p.adoptable(ctx, &orcv1alpha1.ApplicationCredential{}, cred.Name)
		}
		return fmt.Errorf("create the K-ORC ApplicationCredential of generation %d: %w", gen, err)
	}
	p.creds = append(p.creds, applicationcredential.Credential{Generation: gen, State: korc.State{Phase: korc.PhasePending}})
	return nil
}

// credentialChild is the K-ORC ApplicationCredential of generation gen:
// restricted, minted through mint-cloud with secretName's value, expiring at
// Schedule.ExpiresAt(now), with the spec's scope (docs/reference/
// keystoneapplicationcredential.md, "Rotation" and "Scope").
func (p *pass) credentialChild(gen int64, secretName string) *orcv1alpha1.ApplicationCredential {
	scope := p.scope()
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
				RoleRefs:     scope.RoleRefs,
				AccessRules:  scope.AccessRules,
			},
		},
	}
	return cred
}

// adoptable checks an existing child by applicationcredential.AdoptableChild;
// one the cache does not show yet is this order's own and kept.
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

// deleteGeneration deletes credential-v<gen> and secret-v<gen>.
func (p *pass) deleteGeneration(ctx context.Context, gen int64) error {
	if err := p.deleteLocal(ctx, &orcv1alpha1.ApplicationCredential{}, p.child(korc.CredentialDiscriminator(gen))); err != nil {
		return err
	}
	return p.deleteLocal(ctx, &corev1.Secret{}, p.child(korc.SecretDiscriminator(gen)))
}

// deleteLocal deletes a child in the plane's namespace; NotFound is success.
func (p *pass) deleteLocal(ctx context.Context, obj client.Object, name string) error {
	obj.SetNamespace(p.ns)
	obj.SetName(name)
	if err := p.r.Local.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %T %s/%s: %w", obj, p.ns, name, err)
	}
	return nil
}

// clearLatchedTransportErrors removes K-ORC's Progressing condition from each
// credential with applicationcredential.LatchedTransportError, so K-ORC
// retries. It returns the first write failure.
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

// expiresAtOf is o's spec.resource.expiresAt; nil for none.
func expiresAtOf(o *orcv1alpha1.ApplicationCredential) *time.Time {
	if o == nil || o.Spec.Resource == nil || o.Spec.Resource.ExpiresAt == nil {
		return nil
	}
	t := o.Spec.Resource.ExpiresAt.Time
	return &t
}

// Child lists of the order's children in the plane's namespace, indexed by
// owner (orders.IndexChildren): the credential generations, the Secrets
// (source, mint-cloud, secret-v<N>) and the PushSecret (its metadata, which
// the watch caches).
var (
	credentialList = func() client.ObjectList { return &orcv1alpha1.ApplicationCredentialList{} }
	secretList     = func() client.ObjectList { return &corev1.SecretList{} }
	pushList       = func() client.ObjectList { return eso.NewMetadataList(eso.PushSecretGVK) }
	// roleList and serviceList hold the scope's K-ORC imports (scope.go).
	roleList    = func() client.ObjectList { return &orcv1alpha1.RoleList{} }
	serviceList = func() client.ObjectList { return &orcv1alpha1.ServiceList{} }
)

// childSets are the kinds IndexChildren indexes for the order.
var childSets = []orders.ChildSet{{List: credentialList}, {List: secretList}, {List: pushList},
	{List: roleList}, {List: serviceList}}

// ownCredential selects the order's credential-v<N> children.
func (q *pass) ownCredential(o client.Object) bool {
	gen, ok := applicationcredential.GenerationOfChild(q.prefix, o.GetName())
	return ok && o.GetName() == q.child(korc.CredentialDiscriminator(gen))
}

// generational selects the order's generation Secrets and its source Secret.
func (q *pass) generational(o client.Object) bool {
	_, ok := applicationcredential.GenerationOfChild(q.prefix, o.GetName())
	return ok || o.GetName() == q.child(korc.DiscSource)
}

// forget drops the order's probe, refused-login and at-rest memories.
func (q *pass) forget(*orders.Pass[orderObj]) {
	q.r.probes.Delete(q.prefix)
	q.r.logins.Delete(q.prefix)
	q.r.rest.Forget(q.prefix)
}
