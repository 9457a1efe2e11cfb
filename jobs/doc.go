// Package jobs holds the neutral job model (the IR) that every input reader
// produces and every driver consumes. A reader knows nothing of targets; a
// driver knows nothing of input formats: this package is the only thing they
// share. Every field a user wrote keeps the source position it came from, so
// that later stages can report problems at file:line:col.
package jobs
