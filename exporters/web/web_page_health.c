/* The page's first section: fabric health (web_page.h). One list item per
 * condition, its sentence in parts - what and where, since when and for
 * how long, how bad, what to check - so a person reads a line and a test
 * or script finds the parts by class (and the whole in /api/health). The
 * list is cut at the model's shown conditions and says how many more
 * there are: a fabric of 500 devices does not make the page 5000 px long.
 * The script (web_page.js, renderHealth) writes the same markup. */
#include <stdio.h>

#include "web/web_conditions.h"
#include "web/web_format.h"
#include "web/web_page.h"

static void line(struct fsc_html *h, const struct fsc_web_hline *l)
{
    const struct fsc_web_hfact *f = &l->c.f;
    char t[48];
    fsc_html_fmt(h, "<li class=\"cond %s\" data-kind=\"%s\" data-state=\"%s\" data-device=\"",
                 fsc_web_hk_severity((enum fsc_web_hk)f->kind),
                 fsc_web_hk_name((enum fsc_web_hk)f->kind), f->ended ? "recent" : "active");
    fsc_html_text(h, f->device);
    fsc_html_raw(h, "\" data-port=\"");
    fsc_html_text(h, f->port);
    fsc_html_raw(h, "\"><span class=\"title\">");
    fsc_html_text(h, l->t.title);
    fsc_html_raw(h, "</span> <span class=\"what\">");
    fsc_html_text(h, l->t.what);
    fsc_html_raw(h, "</span> <span class=\"since\">");
    int64_t at = f->ended ? f->end_ns : f->since_ns;
    if (at) {
        /* The absolute time in words and, exact, in the datetime. */
        fsc_html_raw(h,
                     f->ended ? (f->kind >= FSC_WEB_HK_MICROBURST ? "at " : "ended ") : "since ");
        fsc_html_fmt(h, "<time datetime=\"%s\">", fsc_web_fmt_time(at, t, sizeof(t)));
        fsc_html_text(h, l->t.when);
        fsc_html_raw(h, "</time> (");
        fsc_html_raw(h, f->ended ? "" : "for ");
        fsc_html_text(h, l->t.age);
        fsc_html_raw(h, f->ended ? " ago)" : ")");
    } else {
        fsc_html_raw(h, "since a time not known");
    }
    fsc_html_raw(h, "</span> <span class=\"measure\">");
    fsc_html_text(h, l->t.measure);
    fsc_html_raw(h, "</span> <span class=\"check\">Check ");
    fsc_html_text(h, l->t.check);
    fsc_html_raw(h, ".</span></li>\n");
}

/* "and 12 more (/api/health has them all)". */
static void more(struct fsc_html *h, size_t total, size_t shown, const char *param)
{
    if (total > shown)
        fsc_html_fmt(h,
                     "<li class=\"more\">and %zu more: <a href=\"/api/health?%s=1000\">"
                     "/api/health</a> lists them</li>\n",
                     total - shown, param);
}

void fsc_web_html_health(struct fsc_html *h, const struct fsc_web_health *hm)
{
    fsc_html_raw(h, "<h2>Fabric health</h2>\n<p id=\"health-info\" class=\"info\">");
    if (!hm) {
        fsc_html_raw(h, "not known</p>\n");
        return;
    }
    char sum[512];
    fsc_html_text(h, fsc_web_health_summary(hm->by_kind, hm->n_active, hm->n_recent, hm->recent_ns,
                                            hm->incomplete, sum, sizeof(sum)));
    fsc_html_fmt(h, "</p>\n<ul id=\"conditions\" class=\"conds\" data-limit=\"%u\">\n",
                 FSC_WEB_PAGE_HEALTH);
    for (size_t i = 0; i < hm->n_active_shown; i++)
        line(h, &hm->active[i]);
    if (hm->n_active == 0)
        fsc_html_raw(h, "<li class=\"empty good\">Nothing wrong now: every source up, no cable, "
                        "PCIe link or detector condition active.</li>\n");
    more(h, hm->n_active, hm->n_active_shown, "limit");
    fsc_html_fmt(h, "</ul>\n<ul id=\"recent\" class=\"conds recent\" data-limit=\"%u\">\n",
                 FSC_WEB_PAGE_RECENT);
    for (size_t i = 0; i < hm->n_recent_shown; i++)
        line(h, &hm->recent[i]);
    more(h, hm->n_recent, hm->n_recent_shown, "recent");
    fsc_html_raw(h, "</ul>\n");
}
