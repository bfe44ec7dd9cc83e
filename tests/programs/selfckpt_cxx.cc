// selfckpt_cxx: selfckpt.c in C++, with what a C++ program needs from
// its run-time: a static constructor (before main), exceptions thrown
// and caught, iostreams, the standard containers.  It calls
// ckpt_and_exit() after steps 1 to 3 (not when built natively, without
// CONDOR_RELINKED) and prints after each: every relinked run, however
// often resumed, prints what the native one does.
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>
#ifdef CONDOR_RELINKED
#include "condor_ckpt.h"
#endif

namespace {

struct registry {
	std::map<std::string, int> names;
	registry() { names["static"] = 7; }
};
registry reg;		// built before main

double
compute(int step, long n)
{
	double x = step;

	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	if (step % 2 == 0)
		throw std::runtime_error("even step " + std::to_string(step));
	return x;
}

}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? std::stol(argv[1]) : 3000000;
	std::vector<double> kept;

	for (int step = 1; step <= 4; step++) {
		std::ostringstream line;
		try {
			kept.push_back(compute(step, n));
			line << "step " << step << ": kept " << kept.back();
		} catch (const std::exception &e) {
			line << "step " << step << ": caught " << e.what();
		}
		std::cout << line.str() << " (" << kept.size() << " kept, "
		    << "static " << reg.names["static"] << ")" << std::endl;
#ifdef CONDOR_RELINKED
		if (step <= 3)
			ckpt_and_exit();
#endif
		std::cout << "after step " << step << std::endl;
	}
	std::cout << "done" << std::endl;
	return 0;
}
