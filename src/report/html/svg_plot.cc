#include "report/html/svg_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "report/html/html_escape.h"

namespace xfer::report {
namespace {

constexpr double kWidth = 760;
constexpr double kPlotHeight = 340;
constexpr double kLeft = 80;
constexpr double kRight = 20;
constexpr double kTop = 36;
constexpr double kBottom = 56;  // tick labels and the x label
constexpr double kLegendRow = 18;
constexpr size_t kMaxXTicks = 12;

// Colour-blind-safe palette (Okabe-Ito, its yellow last: it is faint on
// white), with grey between.
constexpr const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
                                    "#56B4E9", "#000000", "#666666", "#999999", "#F0E442"};

struct Range {
  double min = 0;
  double max = 0;
};

// The visible series: those with at least one point.
std::vector<const PlotSeries*> Drawn(const PlotSpec& spec) {
  std::vector<const PlotSeries*> out;
  for (const PlotSeries& series : spec.series) {
    if (!series.points.empty()) out.push_back(&series);
  }
  return out;
}

// 1, 2 or 5 times a power of ten, so that at most six steps cover `max`.
double NiceStep(double max) {
  const double raw = max / 6;
  const double power = std::pow(10, std::floor(std::log10(raw)));
  for (double factor : {1.0, 2.0, 5.0}) {
    if (factor * power >= raw) return factor * power;
  }
  return 10 * power;
}

// From 0 to a whole number of 1-2-5 steps (`step`) past the series'
// largest coordinate `along` (&PlotPoint::x or &PlotPoint::y).
Range FromZero(const std::vector<const PlotSeries*>& series, double PlotPoint::*along,
               double& step) {
  double hi = 0;
  for (const PlotSeries* s : series) {
    for (const PlotPoint& p : s->points) hi = std::max(hi, p.*along);
  }
  if (!(hi > 0)) hi = 1;
  step = NiceStep(hi);
  return {0, std::ceil(hi / step) * step};
}

// Powers of two around the data, so that ticks fall on the range ends.
Range XRange(const std::vector<const PlotSeries*>& series) {
  double lo = std::numeric_limits<double>::max();
  double hi = 0;
  for (const PlotSeries* s : series) {
    for (const PlotPoint& p : s->points) {
      lo = std::min(lo, p.x);
      hi = std::max(hi, p.x);
    }
  }
  if (series.empty() || !(lo > 0)) return {1, 2};
  Range range{std::exp2(std::floor(std::log2(lo))), std::exp2(std::ceil(std::log2(hi)))};
  if (range.max <= range.min) {
    range.min /= 2;
    range.max *= 2;
  }
  return range;
}

struct Frame {
  Range x;
  Range y;
  bool x_log = true;
  double ToX(double value) const {
    const double f =
        x_log ? (std::log2(value) - std::log2(x.min)) / (std::log2(x.max) - std::log2(x.min))
              : (value - x.min) / (x.max - x.min);
    return kLeft + f * (kWidth - kLeft - kRight);
  }
  double ToY(double value) const {
    return kTop + (1 - (value - y.min) / (y.max - y.min)) * (kPlotHeight - kTop - kBottom);
  }
};

// Tick labels: six significant digits are plenty to read.
std::string Number(double value) { return fmt::format("{:g}", value); }

// data-* attributes: whole numbers in full (a block size of 8388608 must not
// read 8.38861e+06), others to six significant digits.
std::string DataNumber(double value) {
  if (value == std::floor(value) && std::fabs(value) < 0x1p53) return fmt::format("{:.0f}", value);
  return fmt::format("{:.6g}", value);
}

// One vertical grid line with its tick label at data value `value`.
std::string XTick(const Frame& frame, double value, const std::string& label) {
  const double base = kPlotHeight - kBottom;
  return fmt::format(
      "<line class=\"grid\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
      "stroke=\"#e4e4e4\"/>\n<text class=\"xtick\" x=\"{0:.1f}\" y=\"{3:.1f}\" "
      "text-anchor=\"middle\">{4}</text>\n",
      frame.ToX(value), kTop, base, base + 16, label);
}

std::string XAxis(const Frame& frame, double linear_step, const std::string& label,
                  bool sizes) {
  const double base = kPlotHeight - kBottom;
  std::string out = fmt::format(
      "<line class=\"axis\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#333\"/>\n",
      kLeft, base, kWidth - kRight, base);
  if (!frame.x_log) {
    const int ticks = static_cast<int>(std::lround(frame.x.max / linear_step));
    for (int i = 0; i <= ticks; ++i) out += XTick(frame, i * linear_step, Number(i * linear_step));
  } else {
    const int lo = static_cast<int>(std::lround(std::log2(frame.x.min)));
    const int hi = static_cast<int>(std::lround(std::log2(frame.x.max)));
    int stride = 1;
    while (static_cast<size_t>((hi - lo) / stride + 1) > kMaxXTicks) stride *= 2;
    for (int e = lo; e <= hi; e += stride) {
      out += XTick(frame, std::exp2(e), sizes ? BinarySizeLabel(std::exp2(e)) : Number(std::exp2(e)));
    }
  }
  out += fmt::format(
      "<text class=\"xlabel\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
      (kLeft + kWidth - kRight) / 2, base + 38, HtmlEscape(label));
  return out;
}

std::string YAxis(const Frame& frame, double step, const std::string& label) {
  std::string out = fmt::format(
      "<line class=\"axis\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#333\"/>\n",
      kLeft, kTop, kPlotHeight - kBottom);
  const int ticks = static_cast<int>(std::lround(frame.y.max / step));
  for (int i = 0; i <= ticks; ++i) {
    const double value = i * step;
    const double y = frame.ToY(value);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" "
        "stroke=\"#e4e4e4\"/>\n<text class=\"ytick\" x=\"{3:.1f}\" y=\"{4:.1f}\" "
        "text-anchor=\"end\">{5}</text>\n",
        kLeft, y, kWidth - kRight, kLeft - 6, y + 4, Number(value));
  }
  out += fmt::format(
      "<text class=\"ylabel\" transform=\"translate(16,{:.1f}) rotate(-90)\" "
      "text-anchor=\"middle\">{}</text>\n",
      (kTop + kPlotHeight - kBottom) / 2, HtmlEscape(label));
  return out;
}

const char* Colour(const PlotSeries& series) {
  return kPalette[series.color % std::size(kPalette)];
}

// A marker: a dashed vertical line over the whole plot at its first x.
std::string MarkerGroup(const Frame& frame, const PlotSeries& series) {
  const double x = frame.ToX(series.points.front().x);
  return fmt::format(
      "<g class=\"marker\" data-name=\"{}\" data-x=\"{}\"><line x1=\"{:.1f}\" y1=\"{:.1f}\" "
      "x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"1.5\" "
      "stroke-dasharray=\"3 3\"/></g>\n",
      HtmlEscape(series.name), DataNumber(series.points.front().x), x, kTop, x,
      kPlotHeight - kBottom, Colour(series));
}

std::string SeriesGroup(const Frame& frame, const PlotSeries& series) {
  if (series.marker) return MarkerGroup(frame, series);
  std::vector<PlotPoint> points = series.points;
  std::sort(points.begin(), points.end(),
            [](const PlotPoint& a, const PlotPoint& b) { return a.x < b.x; });
  std::string coords;
  std::string markers;
  for (const PlotPoint& p : points) {
    const double x = frame.ToX(p.x);
    const double y = frame.ToY(p.y);
    if (!coords.empty()) coords += ' ';
    coords += fmt::format("{:.1f},{:.1f}", x, y);
    if (!series.ceiling) {
      markers += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>", x, y,
                             Colour(series));
    }
  }
  // A ceiling with one point is drawn as a short dash so it still shows.
  if (series.ceiling && points.size() == 1) {
    const double x = frame.ToX(points[0].x);
    const double y = frame.ToY(points[0].y);
    coords = fmt::format("{:.1f},{:.1f} {:.1f},{:.1f}", x - 12, y, x + 12, y);
  }
  return fmt::format(
      "<g class=\"{}\" data-name=\"{}\" data-points=\"{}\"><polyline points=\"{}\" fill=\"none\" "
      "stroke=\"{}\" stroke-width=\"2\"{}/>{}</g>\n",
      series.ceiling ? "ceiling" : "series", HtmlEscape(series.name), points.size(), coords,
      Colour(series), series.ceiling ? " stroke-dasharray=\"6 4\"" : "", markers);
}

std::string Legend(const std::vector<const PlotSeries*>& series) {
  std::string out = "<g class=\"legend\">\n";
  for (size_t i = 0; i < series.size(); ++i) {
    const double y = kPlotHeight + static_cast<double>(i) * kLegendRow;
    out += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
        "stroke-width=\"2\"{}/><text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
        kLeft, y, kLeft + 28, y, Colour(*series[i]),
        series[i]->marker    ? " stroke-dasharray=\"3 3\""
        : series[i]->ceiling ? " stroke-dasharray=\"6 4\""
                             : "",
        kLeft + 36, y + 4,
        HtmlEscape(series[i]->name));
  }
  return out + "</g>\n";
}

}  // namespace

std::string BinarySizeLabel(double bytes) {
  constexpr const char* kSuffix[] = {"", "K", "M", "G", "T"};
  const double exponent = std::log2(bytes);
  if (bytes >= 1 && exponent == std::floor(exponent)) {
    const int e = static_cast<int>(exponent);
    const size_t unit = std::min<size_t>(static_cast<size_t>(e / 10), std::size(kSuffix) - 1);
    return fmt::format("{}{}", Number(std::exp2(e - 10 * static_cast<int>(unit))), kSuffix[unit]);
  }
  return Number(bytes);
}

std::string RenderSvgPlot(const PlotSpec& spec) {
  const std::vector<const PlotSeries*> series = Drawn(spec);
  // Markers span the plot: their points do not set the y range.
  std::vector<const PlotSeries*> measured_or_ceiling;
  for (const PlotSeries* s : series) {
    if (!s->marker) measured_or_ceiling.push_back(s);
  }
  double step = 1;
  double x_step = 1;
  Frame frame{spec.x_log ? XRange(series) : FromZero(series, &PlotPoint::x, x_step),
              FromZero(measured_or_ceiling, &PlotPoint::y, step), spec.x_log};
  const auto count = [&](auto predicate) {
    return static_cast<size_t>(std::count_if(series.begin(), series.end(), predicate));
  };
  const size_t measured = count([](const PlotSeries* s) { return !s->ceiling && !s->marker; });
  const size_t markers = count([](const PlotSeries* s) { return s->marker; });
  const double height = kPlotHeight + static_cast<double>(series.size()) * kLegendRow + 8;
  std::string out = fmt::format(
      "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" data-series=\"{2}\" data-ceilings=\"{3}\" data-markers=\"{10}\" "
      "data-x-min=\"{4}\" data-x-max=\"{5}\" data-y-min=\"{6}\" data-y-max=\"{7}\" "
      "role=\"img\">\n"
      "<title>{8}</title>\n"
      "<text class=\"title\" x=\"{9}\" y=\"20\" text-anchor=\"middle\">{8}</text>\n",
      kWidth, height, measured, series.size() - measured - markers, DataNumber(frame.x.min),
      DataNumber(frame.x.max), DataNumber(frame.y.min), DataNumber(frame.y.max), HtmlEscape(spec.title),
      kWidth / 2, markers);
  out += XAxis(frame, x_step, spec.x_label, spec.x_sizes);
  out += YAxis(frame, step, spec.y_label);
  for (const PlotSeries* s : series) out += SeriesGroup(frame, *s);
  out += Legend(series);
  return out + "</svg>\n";
}

}  // namespace xfer::report
