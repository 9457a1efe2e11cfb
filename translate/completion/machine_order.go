package completion

// Block ends the attempt because a role can never start (Blocked gives the
// reason): a failure the format's job retry rules judge, as the gang
// timeout is, since on Kubernetes the failed dependency fails the set and
// its failure policy restarts it or not. Nothing once a verdict is in.
func (m *Machine) Block(reason string) []Action {
	if m.over || m.ending() {
		return nil
	}
	return m.decide(Verdict{Phase: PhaseFailed, ExitCode: noRuleExitCode, Reason: reason}, false)
}
