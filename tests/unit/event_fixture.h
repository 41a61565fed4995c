/* Reading an event's typed fields (model/event.h) in tests. */
#ifndef FSC_EVENT_FIXTURE_H
#define FSC_EVENT_FIXTURE_H

#include <math.h>

#include "model/event.h"

/* The value of ev's field id, or NAN when it has none. */
static inline double EVF(const struct fsc_event *ev, enum fsc_event_field_id id)
{
    double v;
    return fsc_event_get(ev, id, &v) ? v : NAN;
}

/* The window utilization of window level `level`, or -1 when ev has none. */
static inline double EVW(const struct fsc_event *ev, unsigned level)
{
    for (unsigned i = 0; i < ev->n_fields; i++) {
        struct fsc_event_field f = fsc_event_field_at(ev, i);
        if (f.id == FSC_EF_WINDOW_UTILIZATION && f.aux == level)
            return f.value;
    }
    return -1;
}

#endif
