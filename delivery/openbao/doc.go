// Package openbao holds the hub's side of the OpenBao backup path: a client
// factory over github.com/openbao/openbao/api/v2 (NewClient), the KV v2 paths
// the reference pages fix for each delivered credential (paths.go), and the helpers that
// read, verify and tear down what ESO pushed there (kv.go).
//
// The hub never writes credentials to OpenBao itself: ESO's PushSecret does
// (see package eso). This package reads them back to verify a push and deletes
// a path's metadata on teardown where no PushSecret is left to do it.
//
// Paths are relative to the KV v2 mount (the mount is not part of them), as
// ESO's remoteRef.remoteKey and KVv2(mount).Get take them. Nothing here logs,
// and no error message carries a token or a secret value.
package openbao
