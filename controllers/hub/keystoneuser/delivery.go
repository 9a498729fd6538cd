package keystoneuser

import (
	"context"
	"strings"

	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/apply"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/delivery/openbao"
	"github.com/c5c3/orderhub/korc"
)

// The two keys of the delivered Secret and of the OpenBao document
// ("Delivered Secret contract", row "Data keys").
const (
	deliveredKeyCloudsYAML = openbao.PropertyCloudsYAML
	deliveredKeyPassword   = openbao.PropertyPassword
)

// deliver moves the applied, Keystone-accepted password pw to the order:
// the document (clouds.yaml named after the order, and the password) is
// written to the source Secret and pushed to OpenBao first
// (orders.Backup); only once ESO reports that push is the Secret
// <name>-credentials written on the order's cluster (orders.Delivered).
// Outcomes land in p.obs (NotPublished, StoreNotReady, Pushed, Refused,
// Delivered); the error is a Kubernetes-level failure (DeliveryError).
func (p *pass) deliver(ctx context.Context, pw []byte, domain string, scope ProjectScope) error {
	authURL, g := orders.DeliveredAuthURL(p.cp, p.o.Cluster)
	if !g.Passed() {
		p.obs.NotPublished = g
		return nil
	}
	doc, err := cloudsyaml.Render(p.ku.Name, DeliveredCloud(p.cp, p.o.Cluster, authURL, EffectiveUserName(p.ku), domain, scope, pw))
	if err != nil {
		return err
	}
	data := map[string][]byte{deliveredKeyCloudsYAML: doc, deliveredKeyPassword: pw}
	prefix := strings.TrimSuffix(korc.ChildPrefix(p.o.Name, korc.OrderKey(p.o.Cluster, p.o.Namespace, p.o.Name), korc.InfixUser), "-")
	path, err := BackupPath(p.cp.Namespace, prefix)
	if err != nil {
		return err
	}
	bs, err := orders.Backup{Plane: p.cp, SourceName: p.name(korc.DiscSource), BackupName: p.name(korc.DiscBackup),
		Labels: p.lbl, Path: path, Data: data}.Ensure(ctx, p.r.Local)
	if err != nil {
		return err
	}
	if bs.StoreNotReady {
		p.obs.StoreNotReady, p.obs.StoreMessage = true, bs.Message
		return nil
	}
	if !bs.Pushed {
		p.obs.PushMessage = bs.Message
		return nil
	}
	p.obs.Pushed = true
	err = orders.Delivered{Order: p.o, Owner: p.ku, Data: data}.Write(ctx, p.oc)
	if apply.IsNotOwned(err) {
		p.obs.Refused = err
		return nil
	}
	if err != nil {
		return err
	}
	p.obs.Delivered = true
	return nil
}
