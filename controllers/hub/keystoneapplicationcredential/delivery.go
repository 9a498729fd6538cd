package keystoneapplicationcredential

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/delivery/openbao"
	"github.com/c5c3/orderhub/korc"
)

// deliveredInterface is the catalog interface delivered: public on a target
// cluster of a Managed plane, else controlplane.EndpointType.
func (p *pass) deliveredInterface() string {
	if p.ord.OnTargetCluster() && !controlplane.IsExternal(p.cp) {
		return cloudsyaml.InterfacePublic
	}
	return controlplane.EndpointType(p.cp)
}

// currentData is the delivered generation's document; ok is false without a
// generation, secret or auth URL (p.obs.KeystoneNotPublished).
func (p *pass) currentData(ctx context.Context) (map[string][]byte, bool, error) {
	// Checked first: an unpublished Keystone is named before any generation.
	authURL, g := orders.DeliveredAuthURL(p.cp, p.ord.Cluster)
	if !g.Passed() {
		p.obs.KeystoneNotPublished = true
		return nil, false, nil
	}
	if p.st.CredentialGeneration == 0 || p.st.CredentialID == "" {
		return nil, false, nil
	}
	secret, ok, err := p.secretValue(ctx, p.st.CredentialGeneration)
	if err != nil || !ok {
		return nil, false, err
	}
	data, err := applicationcredential.DeliveredData(applicationcredential.DeliveredParams{CloudName: p.ac.Name,
		AuthURL: authURL, ID: p.st.CredentialID, Secret: string(secret), Region: controlplane.Region(p.cp),
		Interface: p.deliveredInterface()})
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// readDelivered reads <name>-credentials; nil when absent, foreign when not
// controlled by this order.
func (p *pass) readDelivered(ctx context.Context) (s *corev1.Secret, foreign bool, err error) {
	var sec corev1.Secret
	err = p.oc.Get(ctx, types.NamespacedName{Namespace: p.ac.Namespace, Name: orders.SecretName(p.ac.Name)}, &sec)
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the delivered Secret: %w", err)
	}
	for _, r := range sec.OwnerReferences {
		if r.UID == p.ac.UID && r.Controller != nil && *r.Controller {
			return &sec, false, nil
		}
	}
	return &sec, true, nil
}

func carriesID(s *corev1.Secret, id string) bool {
	return s != nil && id != "" && string(s.Data[openbao.PropertyApplicationCredentialID]) == id
}

// carries reports whether s holds every key of data byte for byte.
func carries(s *corev1.Secret, data map[string][]byte) bool {
	if s == nil || len(data) == 0 {
		return false
	}
	for k, v := range data {
		if !bytes.Equal(s.Data[k], v) {
			return false
		}
	}
	return true
}

// deliver backs up, then writes <name>-credentials once ESO pushed it
// (docs/reference/keystoneapplicationcredential.md, "Delivered Secret
// contract"); a foreign Secret is never taken over.
func (p *pass) deliver(ctx context.Context, cur *corev1.Secret) {
	data, ok, err := p.currentData(ctx)
	if err != nil {
		p.obs.DeliveryError = err
		return
	}
	if !ok {
		return
	}
	path, err := openbao.ApplicationCredentialPath(p.ns, strings.TrimSuffix(p.prefix, "-"))
	if err != nil {
		p.obs.DeliveryError = err
		return
	}
	state, err := orders.Backup{Plane: p.cp, SourceName: p.child(korc.DiscSource), BackupName: p.child(korc.DiscBackup),
		Labels: p.lbl, Path: path, Data: data}.Ensure(ctx, p.r.Local)
	if err != nil {
		p.obs.DeliveryError = fmt.Errorf("back up the credential: %w", err)
		return
	}
	if !state.Pushed {
		return
	}
	p.obs.BackupSynced = true
	if !carries(cur, data) {
		err := orders.Delivered{Order: p.ord, Owner: p.ac, Data: data}.Write(ctx, p.oc)
		switch {
		case apierrors.IsConflict(err):
			p.obs.DeliveryError = fmt.Errorf("the delivered Secret changed while it was written; retrying: %w", err)
			return
		case err != nil && isNotOwned(err):
			p.obs.ForeignSecret = true
			return
		case err != nil:
			p.obs.DeliveryError = fmt.Errorf("write the delivered Secret: %w", err)
			return
		}
		p.event(corev1.EventTypeNormal, EventDelivered, "Deliver", "Secret %s now carries generation %d",
			orders.SecretName(p.ac.Name), p.st.CredentialGeneration)
		if o := p.credObjs[p.st.CredentialGeneration]; o != nil && p.st.PreviousCredentialGeneration > 0 {
			orders.ObserveRotationDuration(p.ord.Kind, p.now.Sub(o.CreationTimestamp.Time))
		}
	}
	p.obs.Delivered = true
	p.rollConsumers(ctx)
	// The first pass that sees the Secret carry the generation starts the
	// superseded generation's grace period over
	// (docs/reference/keystoneapplicationcredential.md, "Delivered Secret
	// contract": it "stays valid for the grace period after the switch" of the
	// delivered Secret).
	p.st = applicationcredential.MarkDelivered(p.st, p.schedule, p.now, orders.SecretName(p.ac.Name))
}

// deleteDelivered deletes the delivered Secret on the order's cluster
// unless it is foreign (no controller reference to the order) or already
// being deleted. NotFound is success.
func (q *pass) deleteDelivered(ctx context.Context, _ *orders.Pass[orderObj]) error {
	delivered, foreign, err := q.readDelivered(ctx)
	if err != nil || delivered == nil || foreign || !delivered.DeletionTimestamp.IsZero() {
		return err
	}
	if err := q.oc.Delete(ctx, delivered); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("delete the delivered Secret: %w", err)
	}
	return nil
}
