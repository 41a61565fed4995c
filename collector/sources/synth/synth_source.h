/* The `synthetic` source: an in-process traffic generator for one device.
 *
 * It needs no switch and no NIC, so the README's first command shows the whole
 * pipeline working on any machine: per port it produces rx/tx byte counters
 * at a baseline utilization with noise, a line-rate burst on one port every
 * `burst_every`, a CNP storm on one port every `storm_every`, and a 32-bit
 * out_of_sequence counter that wraps. Device time is the wall clock. The
 * detectors see real microbursts and CNP spikes and the daemon logs them. */
#ifndef FSC_SYNTH_SOURCE_H
#define FSC_SYNTH_SOURCE_H

#include "plugin/source.h"
#include "sources/synth/synth_config.h"

extern const struct fsc_source_ops fsc_synth_source_ops;

#endif
