/* Fuzz target gnmi: one gnmi.SubscribeResponse as gRPC delivers it, through
 * fsc_gnmi_decode() (collector/sources/gnmi/gnmi_decode.h), with the Junos profile
 * and a registry, as a stream's thread runs it.
 *
 * Checked: the result's counts add up (every update is a sample, a pseudo
 * leaf, unsupported, refused or overflow), samples name interned series and
 * carry the message's time, a refused message reports nothing, and a second
 * decode of the same bytes (series caches now warm) gives the same samples
 * and interns nothing (gnmi_common.h). Seeds: gnmi_sim's messages. */
#include "gnmi_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gnmi_fuzz g;
    struct gnmi_fuzz_run *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    FUZZ_CHECK(a && b);
    gnmi_fuzz_open(&g);
    gnmi_fuzz_twice(&g, data, size, a, b);
    struct fsc_gnmi_decode_stats st;
    fsc_gnmi_decoder_stats(g.dec, &st);
    FUZZ_CHECK(st.messages == 2 && st.malformed == (a->rc ? 2u : 0u));
    gnmi_fuzz_close(&g);
    free(a);
    free(b);
    return 0;
}
