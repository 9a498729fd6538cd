// Package apply delivers a Secret with server-side apply under one field
// owner, with the rules of docs/reference/keystoneapplicationcredential.md,
// "Delivered Secret contract":
//
//   - "The operator applies the Secret with Server-Side Apply and owns its
//     three keys. An edited key is rewritten and a deleted Secret is written
//     again; a key somebody else adds stays."
//   - "A Secret of the same name that the order does not own is never taken
//     over: the order reports DeliveryRefused."
//
// Rewriting an edited key is SSA with ForceOwnership (the editor's manager
// loses the field back to ours); keeping a foreign key is SSA's merge: a
// field our apply never set is not ours to remove. Re-creating a deleted
// Secret is the absent case of the next delivery.
package apply
