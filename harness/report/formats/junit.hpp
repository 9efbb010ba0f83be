// The JUnit format (reporter "junit"): a comparison as JUnit XML, the test-report format CI
// dashboards read (GitLab's artifacts:reports:junit, Jenkins' junit step, GitHub actions that
// publish test results): one <testcase> per benchmark, regressions and broken benchmarks as
// <failure>, benchmarks not compared as <skipped>. Layout and a worked example:
// docs/compare.md.
#pragma once

#include <string>

#include "compare/compare.hpp"
#include "report/text_format.hpp"

namespace tb {

// timestamp: the ISO 8601 time written on the <testsuite> (empty: left out).
std::string comparison_junit(const Comparison& c, const RunLabels& l, const std::string& timestamp = "");

// Text made safe for XML 1.0 attribute values and character data: & < > " ' escaped,
// characters XML 1.0 forbids (most C0 controls) replaced by '?'.
std::string xml_escape(const std::string& s);

}  // namespace tb
