"""Clocks, temperature, power and throttle reasons of a GPU through NVML, with the keys and units
of the native worker (core/engine/gpu_state.cpp): both workers' `hello` and `gpu_state` messages
must carry the same facts. NVML is loaded with ctypes, as the native worker dlopens it: no Python
package is needed, and where the driver's library is absent the state is simply empty."""
import ctypes

_CLOCK_SM, _CLOCK_MEM, _TEMPERATURE_GPU = 1, 2, 0
_REASONS = ((0x1, "idle"), (0x2, "application-clocks"), (0x4, "sw-power-cap"), (0x8, "hw-slowdown"),
            (0x10, "sync-boost"), (0x20, "sw-thermal"), (0x40, "hw-thermal"), (0x80, "hw-power-brake"),
            (0x100, "display-clocks"))
_nvml = None  # the loaded and initialised library, False once loading failed


def _library():
    global _nvml
    if _nvml is None:
        try:
            lib = ctypes.CDLL("libnvidia-ml.so.1")
            _nvml = lib if lib.nvmlInit_v2() == 0 else False
        except (OSError, AttributeError):
            _nvml = False
    return _nvml


def reason_names(bits):
    names = [name for bit, name in _REASONS if bits & bit]
    return ",".join(names) if names else "none"


def _device(torch, index):
    """(NVML library, device handle) for CUDA device `index`, or (None, why not)."""
    lib = _library()
    if not lib:
        return None, "NVML (libnvidia-ml.so.1) could not be loaded or initialised"
    # CUDA and NVML number devices differently (CUDA_VISIBLE_DEVICES, ordering): match by PCI id.
    p = torch.cuda.get_device_properties(index)
    if not hasattr(p, "pci_bus_id"):  # a torch too old to say where the device sits
        return None, "this torch does not say where the device sits (no pci_bus_id)"
    pci = f"{p.pci_domain_id:04x}:{p.pci_bus_id:02x}:{p.pci_device_id:02x}.0".encode()
    device = ctypes.c_void_p()
    if lib.nvmlDeviceGetHandleByPciBusId_v2(pci, ctypes.byref(device)) != 0:
        return None, f"NVML does not know the device at {pci.decode()}"
    return lib, device


def energy_mj(torch, index):
    """(millijoules since the driver loaded, None) from the GPU's total-energy counter, or
    (None, "no energy counter: why"): core/engine/gpu_state.cpp's readEnergy."""
    lib, device = _device(torch, index)
    if lib is None:
        return None, f"no energy counter: {device}"
    try:
        fn = lib.nvmlDeviceGetTotalEnergyConsumption
    except AttributeError:
        return None, "no energy counter: this NVML has no nvmlDeviceGetTotalEnergyConsumption"
    value = ctypes.c_ulonglong()
    status = fn(device, ctypes.byref(value))
    if status != 0:
        return None, f"no energy counter on this GPU (NVML status {status})"
    return value.value, None


def power_mw(torch, index):
    """The GPU's power draw now in milliwatts (nvmlDeviceGetPowerUsage), None without NVML: what the
    energy counter is checked against (bench/energy_counter_check.py)."""
    lib, device = _device(torch, index)
    value = ctypes.c_uint()
    if lib is None or lib.nvmlDeviceGetPowerUsage(device, ctypes.byref(value)) != 0:
        return None
    return value.value


def read(torch, index):
    """{key: str} for CUDA device `index` as torch numbers it; {} without NVML."""
    lib, device = _device(torch, index)
    if lib is None:
        return {}
    state = {}
    driver = ctypes.create_string_buffer(96)
    if lib.nvmlSystemGetDriverVersion(driver, ctypes.c_uint(96)) == 0:
        state["nvidia_driver"] = driver.value.decode()
    value = ctypes.c_uint()
    if lib.nvmlDeviceGetClockInfo(device, _CLOCK_SM, ctypes.byref(value)) == 0:
        state["sm_clock_mhz"] = str(value.value)
    if lib.nvmlDeviceGetClockInfo(device, _CLOCK_MEM, ctypes.byref(value)) == 0:
        state["mem_clock_mhz"] = str(value.value)
    if lib.nvmlDeviceGetMaxClockInfo(device, _CLOCK_SM, ctypes.byref(value)) == 0:
        state["sm_clock_max_mhz"] = str(value.value)
    if lib.nvmlDeviceGetTemperature(device, _TEMPERATURE_GPU, ctypes.byref(value)) == 0:
        state["temperature_c"] = str(value.value)
    if lib.nvmlDeviceGetPowerUsage(device, ctypes.byref(value)) == 0:
        state["power_w"] = str(value.value // 1000)
    reasons = ctypes.c_ulonglong()
    if lib.nvmlDeviceGetCurrentClocksThrottleReasons(device, ctypes.byref(reasons)) == 0:
        state["throttle_reasons"] = reason_names(reasons.value)
    return state


def cuda_driver_api():
    """The CUDA version the driver supports, dotted as the native worker writes it (13000 -> 13.0.0);
    None where libcuda cannot be asked."""
    try:
        version = ctypes.c_int()
        if ctypes.CDLL("libcuda.so.1").cuDriverGetVersion(ctypes.byref(version)) != 0:
            return None
    except (OSError, AttributeError):
        return None
    v = version.value
    return f"{v // 1000}.{(v % 1000) // 10}.{v % 10}"
