package translate

import (
	"crypto/sha256"
	"encoding/json"
)

// fingerprint identifies the inputs of compile (see Plan.Compiled).
type fingerprint [sha256.Size]byte

// fingerprintOf hashes what compile reads: the job (all of it, through its
// JSON encoding, which follows pointers, so a change to a role's command
// or ports shows) and the contracts and user. ok is false when the job
// cannot be encoded (a value JSON has no form for); the caller then
// compiles every time rather than trust a stale result.
func fingerprintOf(p *Plan) (fingerprint, bool) {
	b, err := json.Marshal(struct {
		Job       any
		Contracts []string
		User      string
		Resolved  bool
	}{p.Job, p.Contracts, p.User, p.resolved})
	if err != nil {
		return fingerprint{}, false
	}
	return sha256.Sum256(b), true
}
