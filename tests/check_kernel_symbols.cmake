# Fails when a kernel unit (core/kernels/<family>_<isa>.cpp, the units core/CMakeLists.txt's loop
# compiles with each set's -m flags, half_convert_avx2.cpp and gemm_bf16_avx512bf16.cpp; the Simd traits and bodies they
# include live in anonymous namespaces) defines a weak symbol: an inline function or template instance that the linker
# may keep for the whole program, so that code built for AVX-512 would run on a CPU without it
# (core/kernels/gemm_kernels.h); and when an AVX2 unit holds an EVEX-encoded (AVX-512) instruction, as a
# -march=native build on an AVX-512 machine would give it without -mno-avx512f.
# Usage: cmake -DNM=nm -DOBJDUMP=objdump -DOBJECTS="a.o|b.o|..." -P check_kernel_symbols.cmake
string(REPLACE "|" ";" objects "${OBJECTS}")
set(checked 0)
foreach(object IN LISTS objects)
  if(NOT object MATCHES "(gemm_(nt|packed|lowp)|gemv_nt|softmax|norm_rows|elementwise|half_convert)_avx(2|512)\\.cpp\\.o(bj)?$"
     AND NOT object MATCHES "gemm_bf16_avx512bf16\\.cpp\\.o(bj)?$")
    continue()
  endif()
  math(EXPR checked "${checked} + 1")
  execute_process(COMMAND "${NM}" --defined-only "${object}" OUTPUT_VARIABLE symbols RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${object}")
  endif()
  string(REGEX MATCHALL "[^\n]* [VWu] [^\n]*" weak "${symbols}")
  # The personality routine's reference is data every C++ unit with exceptions shares, and clang's
  # __clang_call_terminate only calls std::terminate: neither holds vector code.
  list(FILTER weak EXCLUDE REGEX "DW\\.ref\\.__gxx_personality_v0|__clang_call_terminate")
  if(weak)
    string(REPLACE ";" "\n  " weak "${weak}")
    message(FATAL_ERROR "${object} defines weak symbols (shared inline code compiled for its instruction set):\n  ${weak}")
  endif()
  if(object MATCHES "_avx2\\.cpp\\.o(bj)?$" AND OBJDUMP)
    execute_process(COMMAND "${OBJDUMP}" -d "${object}" OUTPUT_VARIABLE code RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "${OBJDUMP} failed on ${object}")
    endif()
    # 0x62 opens an EVEX instruction in 64-bit mode (after an optional operand/address-size prefix)
    string(REGEX MATCH "[^\n]*:\t(6[67] )?62 [^\n]*" evex "${code}")
    if(evex)
      message(FATAL_ERROR "${object} holds AVX-512 (EVEX) code, which an AVX2 CPU cannot run:\n  ${evex}")
    endif()
  endif()
endforeach()
if(checked EQUAL 0)
  message(FATAL_ERROR "no GEMM kernel objects among: ${OBJECTS}")
endif()
message(STATUS "${checked} kernel units define no weak symbols; the AVX2 ones hold no AVX-512 code")
