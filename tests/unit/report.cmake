# --- report: rollup store, rollups from a real engine, the capacity report ---
# (exporters/rollup; `ctest -L report`)
fsc_unit_test(rollup_store LABELS report rollup LIBS fsc_rollup CASES
  crc_and_names write_read_days torn_record retention_and_bound keys_rebound_after_restart
  version1_reads_whole_minutes dir_deleted_or_replaced)
fsc_unit_test(rollup_engine LABELS report rollup LIBS fsc_rollup CASES
  one_minute_known_answers flush_partial_and_restart start_stop_from_config)
# html_chromium renders report.html in headless Chromium (Debian package);
# it exits 77 (skipped) where chromium is not installed, and fails under CI
# (CI=true: tests/test.h, test_skip).
fsc_unit_test(report LABELS report LIBS fsc_rollup TIMEOUT 120 CASES
  csv_tables_exact json_tables_exact quantile_rules empty_range_and_no_store html_chromium
  short_range_covered_time speed_and_duration_text)
set_tests_properties(report.html_chromium PROPERTIES SKIP_RETURN_CODE 77)
# `report --compare`: named ranges from a formula-seeded store, statistics,
# Mann-Whitney U by hand, JSON fields, HTML bars (and in
# headless Chromium: skipped, 77, without it), range errors, options, the row bound.
fsc_unit_test(report_compare LABELS report LIBS fsc_rollup TIMEOUT 120 CASES
  known_answers mann_whitney_by_hand json_exact html_bars html_chromium range_errors
  cli_options row_bound)
set_tests_properties(report_compare.html_chromium PROPERTIES SKIP_RETURN_CODE 77)
