/* Fuzz target cables: cables.txt text for fsc_cabling_parse()
 * (collector/model/cable_plan.h) with the default B300 layout.
 *
 * Checked, for an accepted plan:
 *   - every interface is consistent: node 1..9, port 1..8, np 0/1; a cabled
 *     one's peer points back at it (same link, swapped addresses) and the
 *     two addresses share one /30 (FSC_CABLING_PREFIX_LEN);
 *   - lookups agree with the table (fsc_cabling_find by node + ifname);
 *   - every node renders its ip commands without error;
 * refused: NULL and a sentence. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "model/cable_plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    err[0] = '\0';
    struct fsc_cable_layout lay;
    fsc_cable_layout_default(&lay);
    struct fsc_cabling *cab =
        fsc_cabling_parse((const char *)data, size, "cables.txt", &lay, err, sizeof err);
    if (!cab) {
        FUZZ_CHECK(err[0] != '\0');
        return 0;
    }
    size_t n = fsc_cabling_n_ifaces(cab), cabled = 0;
    for (size_t i = 0; i < n; i++) {
        const struct fsc_cabling_iface *f = fsc_cabling_iface(cab, i);
        FUZZ_CHECK(f && f->ifname && f->node >= 1 && f->node <= 9 && f->port >= 1 && f->port <= 8 &&
                   f->np <= 1 && f->card <= 7);
        FUZZ_CHECK(fsc_cabling_find(cab, f->node, f->ifname) == f);
        if (!f->cabled) {
            FUZZ_CHECK(f->peer_node == 0 && f->link == 0 && f->addr == 0);
            continue;
        }
        cabled++;
        FUZZ_CHECK(f->peer_node != f->node && f->peer_ifname);
        const struct fsc_cabling_iface *p = fsc_cabling_find(cab, f->peer_node, f->peer_ifname);
        FUZZ_CHECK(p && p->cabled && p->peer_node == f->node && p->peer_port == f->port &&
                   p->np == f->np && p->link == f->link && p->addr == f->peer_addr &&
                   p->peer_addr == f->addr);
        uint32_t mask = ~0u << (32 - FSC_CABLING_PREFIX_LEN);
        FUZZ_CHECK((f->addr & mask) == (f->peer_addr & mask) && f->addr != f->peer_addr);
        char text[16];
        FUZZ_CHECK(strcmp(fsc_cabling_addr_format(f->addr, text, sizeof text), f->addr_text) == 0);
    }
    /* a cable joins np0-np0 and np1-np1: two links, four interfaces */
    FUZZ_CHECK(cabled == 4 * fsc_cabling_n_cables(cab));
    for (uint32_t node = 1; node <= 9; node++) {
        struct fsc_buf out = {0};
        int rc = fsc_cabling_render_node(cab, node, "node", &out);
        FUZZ_CHECK(rc == 0 || rc == -ENOENT);
        FUZZ_CHECK((rc == 0) == (fsc_cabling_node(cab, node) != NULL));
        fsc_buf_free(&out);
    }
    fsc_cabling_destroy(cab);
    return 0;
}
