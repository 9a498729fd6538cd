package keystoneapplicationcredential

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/korc"
)

// refsRead is what one pass read about the referenced orders, for the
// reference gates (applicationcredential.RefusalOf) and the mint-cloud
// document.
type refsRead struct {
	applicationcredential.References
	// password is the user's password of its status.passwordGeneration;
	// nil when not available.
	password []byte
	// ca is the plane's Keystone CA bundle (External mode); nil when none
	// is referenced or it is missing.
	ca []byte
}

// PasswordSecretName is the KeystoneUser order's password Secret of
// generation gen in the plane's namespace (naming contract between kinds:
// korc.OrderChildName(korc.InfixUser, cluster, ns, user, PasswordDiscriminator(gen))).
func PasswordSecretName(cluster, namespace, user string, gen int64) string {
	return korc.OrderChildName(korc.InfixUser, cluster, namespace, user, korc.PasswordDiscriminator(gen))
}

// references reads the KeystoneUser and KeystoneProject the order names and
// the KeystoneRoleAssignments of its namespace on the order's cluster, the
// user's current password Secret and the plane's CA bundle on the
// management cluster (docs/reference/keystoneapplicationcredential.md,
// "Consent", the gate table). Errors: a read failure other than NotFound.
func (p *pass) references(ctx context.Context) (refsRead, error) {
	ac := p.ac
	out := refsRead{References: applicationcredential.References{Namespace: ac.Namespace, Spec: ac.Spec}}
	var err error
	if out.User, err = orders.GetOrNil[c5c3v1alpha1.KeystoneUser](ctx, p.oc, ac.Namespace, ac.Spec.UserRef.Name); err != nil {
		return out, fmt.Errorf("read KeystoneUser %s: %w", ac.Spec.UserRef.Name, err)
	}
	if out.Project, err = orders.GetOrNil[c5c3v1alpha1.KeystoneProject](ctx, p.oc, ac.Namespace, ac.Spec.ProjectRef.Name); err != nil {
		return out, fmt.Errorf("read KeystoneProject %s: %w", ac.Spec.ProjectRef.Name, err)
	}
	if err := p.keystoneIDs(ctx, &out); err != nil {
		return out, err
	}
	var assignments c5c3v1alpha1.KeystoneRoleAssignmentList
	// A read-only lookup of the assignments of the credential's user and
	// project (orders.ReferenceIndexes); nothing here writes to them.
	if err := p.oc.List(ctx, &assignments, client.InNamespace(ac.Namespace), client.UnsafeDisableDeepCopy,
		orders.ReferenceFields(ac.Spec.UserRef.Name, ac.Spec.ProjectRef.Name)); err != nil {
		return out, fmt.Errorf("list KeystoneRoleAssignments in %s: %w", ac.Namespace, err)
	}
	for i := range assignments.Items {
		a := &assignments.Items[i]
		// The role gate reads status.roleID, not AssignmentReady: a frozen
		// assignment keeps its role in Keystone
		// (docs/reference/keystoneapplicationcredential.md, "Consent").
		if a.Spec.UserRef.Name == ac.Spec.UserRef.Name && a.Spec.ProjectRef.Name == ac.Spec.ProjectRef.Name && a.Status.RoleID != "" {
			out.RoleAssigned = true
			break
		}
	}
	ca, referenced, err := controlplane.ReadCABundle(ctx, p.r.Local, p.cp)
	if err != nil {
		return out, err
	}
	out.ca, out.CABundleMissing = ca, referenced && len(ca) == 0
	return out, nil
}

// keystoneIDs reads, for the user and project out holds, the user's
// current password Secret and the Keystone ids of their K-ORC children on
// the management cluster. Errors: a read failure other than NotFound.
func (p *pass) keystoneIDs(ctx context.Context, out *refsRead) error {
	ac := p.ac
	if user := out.User; user != nil && user.Status.PasswordGeneration > 0 {
		name := PasswordSecretName(p.ord.Cluster, ac.Namespace, user.Name, user.Status.PasswordGeneration)
		var s corev1.Secret
		switch err := p.r.Local.Get(ctx, types.NamespacedName{Namespace: p.ns, Name: name}, &s); {
		case err == nil:
			out.password = s.Data[korc.PasswordKey]
			out.PasswordReady = len(out.password) > 0 && s.DeletionTimestamp.IsZero()
		case !apierrors.IsNotFound(err):
			return fmt.Errorf("read the password Secret %s/%s: %w", p.ns, name, err)
		}
	}
	if out.User != nil {
		id, err := orders.UserKeystoneID(ctx, p.r.Local, p.ns, p.ord.Cluster, ac.Namespace, out.User.Name)
		if err != nil {
			return err
		}
		out.UserID = id
	}
	if out.Project != nil {
		id, err := orders.ProjectKeystoneID(ctx, p.r.Local, p.ns, p.ord.Cluster, ac.Namespace, out.Project.Name)
		if err != nil {
			return err
		}
		out.ProjectID = id
	}
	return nil
}

// mintParams is the mint-cloud document's input from what references read:
// the user's id (or name in its domain), the project's id (or name in its
// domain), the plane's K-ORC view of Keystone (controlplane.AuthURL, Region,
// EndpointType) and the CA bundle.
func (p *pass) mintParams(r refsRead) applicationcredential.MintParams {
	admin := controlplane.AdminOf(p.cp)
	userDomain, projectDomain := string(r.User.Spec.DomainName), string(r.Project.Spec.DomainName)
	if userDomain == "" {
		userDomain = admin.Domain
	}
	if projectDomain == "" {
		projectDomain = admin.Domain
	}
	userName := r.User.Status.UserName
	if userName == "" {
		userName = string(r.User.Spec.UserName)
	}
	return applicationcredential.MintParams{
		AuthURL: controlplane.AuthURL(p.cp), UserID: r.UserID, UserName: userName, UserDomain: userDomain,
		Password: r.password, ProjectID: r.ProjectID, ProjectName: r.Project.Status.ProjectName,
		ProjectDomain: projectDomain, Region: controlplane.Region(p.cp), Interface: controlplane.EndpointType(p.cp), CABundle: r.ca,
	}
}
