// Anchors the tribench_datasets library; generators are header-only.
#include "rng.hpp"
#include "sample.hpp"
