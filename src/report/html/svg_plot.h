// One line plot as inline SVG, drawn by xfer itself so that a report needs
// no script and no external file, renders in any browser, and its structure
// can be checked by tests.
//
// Contract of the output, relied on by tests and the headless-browser check:
//  * the root is <svg class="plot"> with data-series (the measured series),
//    data-ceilings (the dashed ceiling lines), data-x-min/-max and
//    data-y-min/-max (the axis ranges, in data units);
//  * every series is one <g class="series"> (or class="ceiling") with
//    data-name, holding a <polyline> and one <circle> per point, so that a
//    single-point series still draws;
//  * the x axis is log2 with ticks at powers of two labelled in binary units
//    (1K = 1024), or (PlotSpec::x_log false) linear from 0 with 1-2-5 ticks
//    (a timeline); the y axis is linear from 0 with 1-2-5 ticks;
//  * a marker (an event on the x axis, e.g. a rail going down) is one
//    <g class="marker"> with data-name and a dashed vertical line at its
//    first point's x, counted in data-markers;
//  * each axis carries its label with the unit as given.
// Pure; thread-safe.
#ifndef XFER_REPORT_HTML_SVG_PLOT_H_
#define XFER_REPORT_HTML_SVG_PLOT_H_

#include <cstddef>
#include <string>
#include <vector>

namespace xfer::report {

struct PlotPoint {
  double x = 0;  // > 0 on a logarithmic x axis, >= 0 on a linear one
  double y = 0;  // >= 0
};

struct PlotSeries {
  std::string name;  // the legend entry
  std::vector<PlotPoint> points;
  size_t color = 0;      // index into the palette; equal indices, equal colours
  bool ceiling = false;  // drawn dashed, counted in data-ceilings
  bool marker = false;   // a vertical dashed line at points[0].x, the full height
};

struct PlotSpec {
  std::string title;
  std::string x_label;  // with its unit, e.g. "message size [bytes]"
  std::string y_label;  // with its unit, e.g. "BW average [Gb/s (10^9 bit/s)]"
  std::vector<PlotSeries> series;
  bool x_log = true;  // false: a linear x axis from 0 (time)
  // A log x axis's ticks as binary sizes (1K, 2M); false: plain numbers.
  bool x_sizes = true;
};

// The <svg> element. Series without points are left out (and not counted).
std::string RenderSvgPlot(const PlotSpec& spec);

// "512", "1K", "64K", "2M", "1G" for powers of two; the plain number else.
std::string BinarySizeLabel(double bytes);

}  // namespace xfer::report

#endif  // XFER_REPORT_HTML_SVG_PLOT_H_
