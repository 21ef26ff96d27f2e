// costdsl._native: the C API (include/costdsl/c/costdsl.h) for Python. The package's
// __init__.py turns keyword arguments into the options JSON; this file converts batches
// and statuses. A batch is converted without building intermediate Python objects, since
// a simulator asks for one every iteration.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "costdsl/c/costdsl.h"

namespace py = pybind11;

namespace {

// The package's exception types: Error, and InputError / ConfigError / DataError /
// ClosedError, which are also ValueErrors (a bad argument), so callers may catch either.
PyObject* g_error = nullptr;
PyObject* g_input_error = nullptr;
PyObject* g_config_error = nullptr;
PyObject* g_data_error = nullptr;
PyObject* g_closed_error = nullptr;

[[noreturn]] void raise(costdsl_status s) {
  PyObject* type = g_error;
  switch (s) {
    case COSTDSL_ERROR_INPUT: type = g_input_error; break;
    case COSTDSL_ERROR_CONFIG: type = g_config_error; break;
    case COSTDSL_ERROR_DATA: type = g_data_error; break;
    case COSTDSL_ERROR_CLOSED: type = g_closed_error; break;
    case COSTDSL_ERROR_NULL: type = PyExc_TypeError; break;
    default: break;
  }
  PyErr_SetString(type, costdsl_last_error());
  throw py::error_already_set();
}

void check(costdsl_status s) {
  if (s != COSTDSL_OK) raise(s);
}

// A whole number in [lo, 2^32 - 1] from a Python int; anything else is a TypeError or
// ValueError naming the element (a NaN or a float KV length included).
std::uint32_t to_u32(PyObject* o, const char* what, std::size_t i, std::uint32_t lo) {
  if (!PyLong_Check(o) || PyBool_Check(o)) {
    if (PyFloat_Check(o))
      throw py::type_error(std::string(what) + "[" + std::to_string(i) + "]: a whole number is needed, got float " +
                           py::repr(o).cast<std::string>());
    throw py::type_error(std::string(what) + "[" + std::to_string(i) + "]: a whole number is needed, got " +
                         Py_TYPE(o)->tp_name);
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow != 0 || v < static_cast<long long>(lo) || v > 0xffffffffLL)
    throw py::value_error(std::string(what) + "[" + std::to_string(i) + "]: " + py::repr(o).cast<std::string>() +
                          " is out of range (" + std::to_string(lo) + " .. 4294967295)");
  return static_cast<std::uint32_t>(v);
}

class Model {
 public:
  explicit Model(const std::string& options_json) { check(costdsl_model_open(options_json.c_str(), &m_)); }
  ~Model() { costdsl_model_close(m_); }
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  void close() {
    costdsl_model_close(m_);
    m_ = nullptr;
  }
  bool closed() const { return m_ == nullptr; }

  // One iteration; prefill: pairs (cached, new), decode: KV lengths. The converted batch
  // lives in this thread's buffers: another Python thread may use the same model while
  // this one has released the GIL.
  costdsl_iteration run(py::handle prefill, py::handle decode, bool breakdown) {
    costdsl_model* const model = m_;
    if (model == nullptr) {
      PyErr_SetString(g_closed_error, "the model is closed");
      throw py::error_already_set();
    }
    thread_local std::vector<costdsl_prefill_chunk> chunks;
    thread_local std::vector<std::uint32_t> kv;
    chunks.clear();
    kv.clear();
    for_each_item(prefill, "prefill", [&](PyObject* item, std::size_t i) {
      PyObject* pair = PySequence_Fast(item, "");
      if (pair == nullptr || PySequence_Fast_GET_SIZE(pair) != 2) {
        Py_XDECREF(pair);
        PyErr_Clear();
        throw py::type_error("prefill[" + std::to_string(i) + "]: a pair (cached_tokens, new_tokens) is needed, got " +
                             py::repr(item).cast<std::string>());
      }
      PyObject** two = PySequence_Fast_ITEMS(pair);
      try {
        chunks.push_back({to_u32(two[0], "prefill cached", i, 0), to_u32(two[1], "prefill new", i, 1)});
      } catch (...) {
        Py_DECREF(pair);
        throw;
      }
      Py_DECREF(pair);
    });
    for_each_item(decode, "decode", [&](PyObject* item, std::size_t i) { kv.push_back(to_u32(item, "decode", i, 1)); });
    costdsl_iteration it{};
    costdsl_status s = COSTDSL_OK;
    {
      py::gil_scoped_release release;  // other Python threads run while costdsl evaluates
      s = breakdown ? costdsl_model_iteration(model, chunks.data(), chunks.size(), kv.data(), kv.size(), &it)
                    : costdsl_model_time(model, chunks.data(), chunks.size(), kv.data(), kv.size(), &it.time_s);
    }
    check(s);
    return it;
  }

  double time(py::handle prefill, py::handle decode) { return run(prefill, decode, false).time_s; }
  costdsl_iteration iteration(py::handle prefill, py::handle decode) { return run(prefill, decode, true); }

 private:
  template <class F>
  static void for_each_item(py::handle seq, const char* what, F&& f) {
    if (seq.is_none()) return;
    PyObject* fast = PySequence_Fast(seq.ptr(), "");
    if (fast == nullptr) {
      PyErr_Clear();
      throw py::type_error(std::string(what) + ": a sequence is needed, got " + Py_TYPE(seq.ptr())->tp_name);
    }
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    PyObject** items = PySequence_Fast_ITEMS(fast);
    try {
      for (Py_ssize_t i = 0; i < n; ++i) f(items[i], static_cast<std::size_t>(i));
    } catch (...) {
      Py_DECREF(fast);
      throw;
    }
    Py_DECREF(fast);
  }

  costdsl_model* m_ = nullptr;
};

PyObject* new_error(py::module_& m, const char* name, PyObject* bases, const char* doc) {
  PyObject* e = PyErr_NewExceptionWithDoc((std::string("costdsl.") + name).c_str(), doc, bases, nullptr);
  if (e == nullptr) throw py::error_already_set();
  m.add_object(name, py::handle(e));
  return e;
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "costdsl's C API for Python (use the costdsl package, not this module)";
  g_error = new_error(m, "Error", PyExc_Exception, "costdsl refused a request or failed; the message says why");
  const py::tuple value_bases = py::make_tuple(py::handle(g_error), py::handle(PyExc_ValueError));
  g_input_error = new_error(m, "InputError", value_bases.ptr(), "a bad option, value, batch or input file");
  g_config_error = new_error(m, "ConfigError", value_bases.ptr(), "the model rejects the layout");
  g_data_error = new_error(m, "DataError", value_bases.ptr(), "a malformed data file (FILE:LINE:COL)");
  g_closed_error = new_error(m, "ClosedError", value_bases.ptr(), "the model was closed");

  py::class_<costdsl_iteration>(m, "Iteration", "One iteration's cost (Model.iteration)")
      .def_readonly("time_s", &costdsl_iteration::time_s)
      .def_readonly("energy_j", &costdsl_iteration::energy_j)
      .def_readonly("flops", &costdsl_iteration::flops)
      .def_readonly("bytes", &costdsl_iteration::bytes)
      .def_property_readonly(
          "families",
          [](const costdsl_iteration& it) {
            py::dict d;
            const char* names[COSTDSL_FAMILY_COUNT] = {"gemm", "attention", "memory", "communication", "other"};
            for (int f = 0; f < COSTDSL_FAMILY_COUNT; ++f) d[names[f]] = it.family_s[f];
            return d;
          },
          "seconds per kernel family along the critical path (they add up to time_s)")
      .def_property_readonly(
          "coverage",
          [](const costdsl_iteration& it) {
            py::list l;
            const std::pair<int, const char*> flags[] = {{COSTDSL_COVERAGE_EXTRAPOLATED, "EXTRAPOLATED"},
                                                         {COSTDSL_COVERAGE_NO_COVERAGE, "NO_COVERAGE"},
                                                         {COSTDSL_COVERAGE_ANALYTIC, "ANALYTIC"},
                                                         {COSTDSL_COVERAGE_RENORMALIZED, "RENORMALIZED"},
                                                         {COSTDSL_COVERAGE_SCALED, "SCALED"}};
            for (const auto& [bit, name] : flags)
              if ((it.coverage & static_cast<std::uint32_t>(bit)) != 0) l.append(name);
            return l;
          },
          "how the leaves were timed: [] when every leaf was measured")
      .def("__repr__", [](const costdsl_iteration& it) {
        return "<costdsl.Iteration " + std::to_string(it.time_s * 1e3) + " ms>";
      });

  py::class_<Model>(m, "Model")
      .def(py::init<const std::string&>(), py::arg("options_json"))
      .def("time", &Model::time, py::arg("prefill") = py::tuple(), py::arg("decode") = py::tuple(),
           "seconds of one iteration of prefill chunks [(cached, new), ...] and decodes [kv_length, ...]")
      .def("iteration", &Model::iteration, py::arg("prefill") = py::tuple(), py::arg("decode") = py::tuple(),
           "one iteration's Iteration (time, energy, work, time per kernel family, coverage)")
      .def("close", &Model::close, "release the model; later calls raise ClosedError")
      .def_property_readonly("closed", &Model::closed);

  m.def(
      "run_json",
      [](const std::string& command, const std::string& options_json) {
        char* out = nullptr;
        costdsl_status s = COSTDSL_OK;
        {
          py::gil_scoped_release release;
          s = costdsl_run_json(command.c_str(), options_json.c_str(), &out);
        }
        check(s);
        std::string text(out);
        costdsl_string_free(out);
        return text;
      },
      py::arg("command"), py::arg("options_json"));
  m.def("version", &costdsl_version);
}
