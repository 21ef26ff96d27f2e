// costdsl: the command-line face of the library (see app.hpp).
#include "app.hpp"

int main(int argc, char** argv) { return costdsl::cli::run(argc, argv); }
