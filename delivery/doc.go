// Package delivery is the root of the hub's delivery path: the building blocks
// that carry a credential from the source Secret the hub assembles to the
// Secret a consumer reads.
//
//   - cloudsyaml renders and parses the clouds.yaml documents delivered to
//     consumers and handed to K-ORC (password and v3applicationcredential auth).
//   - openbao is the OpenBao api/v2 client factory, the backup paths of the
//     reference pages (docs/reference), and the read/verify/teardown helpers on them.
//   - eso builds and reads the External Secrets Operator objects (SecretStore,
//     PushSecret, ExternalSecret) over unstructured.Unstructured, and stamps
//     the force-sync and content-hash annotations.
//   - apply writes a Secret with server-side apply under one field owner and
//     refuses a same-named Secret it does not own.
//
// The package itself holds no code; its integration test
// (go test -tags integration ./delivery/) runs the pieces against the real
// servers started by internal/testenv.
package delivery
