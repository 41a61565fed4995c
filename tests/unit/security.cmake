# Listener security: the credential check of net/http_auth.c
# (verdicts, cache, tokens file, no secret in logs) and the auth / server
# tls config keys. The listeners themselves: tests/integration/security.cmake.
fsc_unit_test(http_auth LABELS security core config CASES
  basic_ok_and_cache failures_not_cached cache_bounded bearer_tokens weak_or_bad_hashes_refused
  log_has_no_secret config_keys)
# A server certificate's validity period (net/pem.c), warned at start and reload.
fsc_unit_test(pem LABELS security CASES cert_time)
