/* GMime 3 peer for `scripts/bench`: parse every message file named on the command line and
 * decode every text part to UTF-8, the same work as `reservoir-bench parse`.
 * Prints: gmime MESSAGES BYTES SECONDS MSGS/S MB/S CHECKSUM
 * Build: cc -O2 gmime_parse.c $(pkg-config --cflags --libs gmime-3.0) */
#include <gmime/gmime.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long checksum;

static void visit(GMimeObject *parent, GMimeObject *part, gpointer data) {
    (void)parent; (void)data;
    if (GMIME_IS_TEXT_PART(part)) {
        char *text = g_mime_text_part_get_text(GMIME_TEXT_PART(part));
        if (text) { checksum += (long)strlen(text); g_free(text); }
    }
}

int main(int argc, char **argv) {
    g_mime_init();
    long messages = 0; double bytes = 0; double t0 = now();
    for (int i = 1; i < argc; i++) {
        GMimeStream *stream = g_mime_stream_file_open(argv[i], "rb", NULL);
        if (!stream) { perror(argv[i]); continue; }
        bytes += (double)g_mime_stream_length(stream);
        GMimeParser *parser = g_mime_parser_new_with_stream(stream);
        GMimeMessage *message = g_mime_parser_construct_message(parser, NULL);
        messages++;
        if (message) {
            const char *subject = g_mime_message_get_subject(message);
            if (subject) checksum += (long)strlen(subject);
            g_mime_message_foreach(message, visit, NULL);
            g_object_unref(message);
        }
        g_object_unref(parser);
        g_object_unref(stream);
    }
    double s = now() - t0;
    printf("gmime %ld %.0f %.3f %.0f %.1f %ld\n", messages, bytes, s, messages / s, bytes / 1e6 / s, checksum);
    return 0;
}
