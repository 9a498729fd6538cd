package topology

import (
	"context"
	"net/http"
	"time"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// GuestUser is the default account RabbitMQ's definitions import recreates
// on every node boot (docs/topology.md, "Configuration", --delete-guest-user;
// OpenStack-Helm commit a480a58d).
const GuestUser = "guest"

// guestReaper deletes the guest user every interval while this replica
// leads, so a node restart that re-imports it is corrected within one
// interval. It refuses to run when the controller itself logs in as guest.
type guestReaper struct {
	broker   *rabbithole.Client
	interval time.Duration
}

// NeedLeaderElection makes only the leader delete guest.
func (g *guestReaper) NeedLeaderElection() bool { return true }

// Start runs until ctx ends.
func (g *guestReaper) Start(ctx context.Context) error {
	logger := log.FromContext(ctx).WithName("guest-user")
	if g.broker.Username == GuestUser {
		logger.Error(nil, "the controller authenticates as guest; not deleting the guest user")
		return nil
	}
	t := time.NewTicker(g.interval)
	defer t.Stop()
	for {
		g.once(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// once sends one DELETE /api/users/guest; 404 means already absent.
func (g *guestReaper) once(ctx context.Context) {
	logger := log.FromContext(ctx).WithName("guest-user")
	res, err := g.broker.DeleteUser(GuestUser)
	code := 0
	if res != nil {
		code = res.StatusCode
	}
	if err := rabbitmq.Done(res, err); err != nil {
		logger.Info("deleting the guest user failed", "error", rabbitmq.Message(err))
		return
	}
	if code != http.StatusNotFound {
		logger.Info("deleted the guest user")
	}
}
