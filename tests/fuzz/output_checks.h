// Checks of the grader's output formats as their readers see them, shared by the hostile suite and the
// output fuzz targets: a CI runner reading the log, libxml2 reading JUnit and HTML, GitHub's own markdown
// parser (cmark-gfm) rendering a comment, a spreadsheet reading the gradebook. Each returns what is wrong, in
// a sentence that quotes the offending part; empty when the output is sound.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpugrade::checks {

// Lines of `output` that GitHub's runner would take as workflow commands: past leading white space a line
// starting with `::`, or `##[` anywhere. With `annotations`, lines of the grader's own annotations
// (`::error `, `::warning `, `::notice ` with the message on that one line) are allowed.
std::string runner_commands(std::string_view output, bool annotations);

// Control characters a terminal acts on (C0 but TAB and LF, DEL, C1, bidi controls), or invalid UTF-8.
std::string terminal_controls(std::string_view output);

// libxml2's complaint about `xml` as an XML document (no network, no entity expansion).
std::string xml_error(std::string_view xml);

// `markdown` rendered as GitHub renders it (cmark-gfm with its table, autolink and strikethrough extensions,
// raw HTML kept so that it can be seen).
std::string render_markdown(std::string_view markdown);
// Tags in rendered HTML other than those the grader's markdown makes (headings, paragraphs, tables, lists,
// strong, code, pre, br): a link, an image or any raw HTML from learner text.
std::string foreign_markdown_tags(std::string_view html);

// The HTML report as libxml2's HTML parser reads it: elements other than the report's own, event handler
// attributes, URLs that leave the page, or a page without its Content-Security-Policy.
std::string html_report_problems(std::string_view html);

// `csv` read as RFC 4180 (rows end at LF outside quotes); *error says where it is malformed.
std::vector<std::vector<std::string>> parse_csv(std::string_view csv, std::string* error);
// A field a spreadsheet would read as a formula.
bool is_formula(std::string_view field);

}  // namespace gpugrade::checks
