# Status page and JSON API tests (exporters/web), label "web": the JSON and
# HTML writers (exact output, escaping), the renderers of every model
# (exact documents and rows), and the routes end to end on a real
# prom_http server with a real engine fed known samples. The strict JSON
# reader of collector/sources/otlp (fsc_otlp) checks every document.
fsc_unit_test(web_json LABELS web LIBS fsc_web fsc_otlp CASES
  writer_exact string_escapes misuse_and_limits html_escapes utf8_sequences)
fsc_unit_test(web_render LABELS web LIBS fsc_web fsc_otlp CASES
  plugin_tables_fit
  status_json_exact ports_json_exact events_json_exact chart_json_exact mesh_json_exact
  health_json_exact error_json_and_limit event_summaries page_rows_exact page_caps_rows
  page_script_injection)
fsc_unit_test(web_routes LABELS web LIBS fsc_web fsc_otlp CASES
  api_known_answers methods_and_errors route_table_checked health_from_state
  many_sources_all_listed)
# The health list (web_conditions.h): known facts in, exact sentences out;
# the demo's swapped cables against examples/b300/cables.txt's plan.
fsc_unit_test(web_health LABELS web LIBS fsc_web CASES
  swap_sentence_exact no_swap_without_evidence sentences_by_kind order_and_folding
  recent_sentences kinds_and_formats)
# The page's script parses (node is a test dependency already: scripts/setup.sh).
find_program(FSC_NODE NAMES node nodejs)
fsc_ci_require(FSC_NODE "node is missing: web.script_syntax is not registered")
if(FSC_NODE)
  add_test(NAME web.script_syntax
           COMMAND ${FSC_NODE} --check ${PROJECT_SOURCE_DIR}/exporters/web/web_page.js)
  set_tests_properties(web.script_syntax PROPERTIES LABELS "unit;web" TIMEOUT 30)
endif()
