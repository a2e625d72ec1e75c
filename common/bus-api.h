/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The D-Bus contract of smcd-agent, in one place, the twin of netlink/uapi/: its name, object
 * paths, interfaces, errors and every member (method, property, signal), and the bus's own
 * names both sides call.  Used by the agent (smcd-agent/bus-*.c, objects.c,
 * loopback-device.c) and by smcctl (cli/bus.c and the verbs).  What each member does is in
 * smcd-agent(8); the bus policy is etc/dbus-1/org.smcd.Agent1.conf.  A name changed here
 * changes both sides.  Tests: bus-names.test (nothing in cli/ or smcd-agent/ spells a name of
 * this file), man-coverage.test (every interface and error is in smcd-agent(8)),
 * agent-man-lint.test (every member is).  The shell tests, the VM guests and the unit file
 * use these names too, as variables of the same name (common/bus-api-sh).
 */
#pragma once

#define SMCD_BUS_NAME "org.smcd.Agent1"

/* The bus's own service and its standard interfaces, which both sides call. */
#define DBUS_SERVICE "org.freedesktop.DBus"
#define DBUS_PATH "/org/freedesktop/DBus"
#define DBUS_IFACE DBUS_SERVICE
#define DBUS_IFACE_PROPERTIES DBUS_SERVICE ".Properties"
#define DBUS_IFACE_OBJECT_MANAGER DBUS_SERVICE ".ObjectManager"
#define DBUS_GET_ALL "GetAll"
#define DBUS_GET_MANAGED_OBJECTS "GetManagedObjects"
#define DBUS_INTERFACES_ADDED "InterfacesAdded"
#define DBUS_INTERFACES_REMOVED "InterfacesRemoved"
#define DBUS_PROPERTIES_CHANGED "PropertiesChanged"
#define DBUS_NAME_HAS_OWNER "NameHasOwner"
#define DBUS_NAME_OWNER_CHANGED "NameOwnerChanged"
#define DBUS_GET_CONNECTION_CREDENTIALS "GetConnectionCredentials"

/* systemd's manager, which smcctl enable asks for a unit's cgroup (cli/unit.c): a unit's
 * ControlGroup and Slice are properties of its type's interface, SYSTEMD_IFACE_PREFIX and
 * the type capitalised (Service, Scope, Slice, Socket, Mount, Swap). */
#define SYSTEMD_SERVICE "org.freedesktop.systemd1"
#define SYSTEMD_PATH "/org/freedesktop/systemd1"
#define SYSTEMD_IFACE_MANAGER SYSTEMD_SERVICE ".Manager"
#define SYSTEMD_IFACE_UNIT SYSTEMD_SERVICE ".Unit"
#define SYSTEMD_IFACE_PREFIX SYSTEMD_SERVICE "."
#define SYSTEMD_LOAD_UNIT "LoadUnit"
#define SYSTEMD_UNIT_LOAD_STATE "LoadState"
#define SYSTEMD_UNIT_CONTROL_GROUP "ControlGroup"
#define SYSTEMD_UNIT_SLICE "Slice"
#define SYSTEMD_ERROR_NO_SUCH_UNIT SYSTEMD_SERVICE ".NoSuchUnit"

/* polkit's authority, which the agent asks (smcd-agent/bus-access.c), and the agent's
 * actions, one per kind of change (etc/polkit-1/org.smcd.agent1.policy). */
#define POLKIT_SERVICE "org.freedesktop.PolicyKit1"
#define POLKIT_PATH "/org/freedesktop/PolicyKit1/Authority"
#define POLKIT_IFACE_AUTHORITY "org.freedesktop.PolicyKit1.Authority"
#define POLKIT_CHECK_AUTHORIZATION "CheckAuthorization"
/* The prefix of every action and detail (the shipped rule matches it). */
#define SMCD_POLKIT_PREFIX "org.smcd.agent1."
#define SMCD_POLKIT_SET_SYSCTL SMCD_POLKIT_PREFIX "set-sysctl"
#define SMCD_POLKIT_MANAGE_UEID SMCD_POLKIT_PREFIX "manage-ueid"
#define SMCD_POLKIT_MANAGE_PNET SMCD_POLKIT_PREFIX "manage-pnet"
#define SMCD_POLKIT_MANAGE_LOOPBACK SMCD_POLKIT_PREFIX "manage-loopback"
#define SMCD_POLKIT_ENROLL_PROCESS SMCD_POLKIT_PREFIX "enroll-process"
#define SMCD_POLKIT_RELOAD SMCD_POLKIT_PREFIX "reload"
#define SMCD_POLKIT_RESET_STATISTICS SMCD_POLKIT_PREFIX "reset-statistics"
#define SMCD_POLKIT_MANAGE_POLICY SMCD_POLKIT_PREFIX "manage-policy"
#define SMCD_POLKIT_MANAGE_AUTOPILOT SMCD_POLKIT_PREFIX "manage-autopilot"
/* The detail CheckAuthorization carries: smc.yaml's admin-group, which the shipped rule
 * (etc/polkit-1/org.smcd.agent1.rules) grants every action to. */
#define SMCD_POLKIT_DETAIL_ADMIN_GROUP SMCD_POLKIT_PREFIX "admin-group"

/* Objects: the agent itself, one per device and per link group (ids escaped as by
 * sd_bus_path_encode()). */
#define SMCD_BUS_PATH "/org/smcd/Agent1"
#define SMCD_BUS_PATH_DEVICE SMCD_BUS_PATH "/device"
#define SMCD_BUS_PATH_SMCD_DEVICE SMCD_BUS_PATH_DEVICE "/smcd"
#define SMCD_BUS_PATH_LINKGROUP SMCD_BUS_PATH "/linkgroup"

/* Interfaces of SMCD_BUS_PATH. */
#define SMCD_BUS_IFACE_MANAGER SMCD_BUS_NAME ".Manager"
#define SMCD_BUS_IFACE_STATS SMCD_BUS_NAME ".Statistics"
#define SMCD_BUS_IFACE_POLICY SMCD_BUS_NAME ".Policy"
#define SMCD_BUS_IFACE_LOOPBACK SMCD_BUS_NAME ".Loopback"
#define SMCD_BUS_IFACE_ASSESSMENT SMCD_BUS_NAME ".Assessment"
#define SMCD_BUS_IFACE_AUTOPILOT SMCD_BUS_NAME ".Autopilot"
/* Interfaces of the device and link-group objects. */
#define SMCD_BUS_IFACE_DEVICE SMCD_BUS_NAME ".Device"
#define SMCD_BUS_IFACE_LOOPBACK_DEVICE SMCD_BUS_NAME ".LoopbackDevice"
#define SMCD_BUS_IFACE_LINKGROUP SMCD_BUS_NAME ".LinkGroup"

/* Errors (besides org.freedesktop.DBus.Error.AccessDenied, InvalidArgs, Failed). */
#define SMCD_BUS_ERROR_CONFIG_INVALID SMCD_BUS_NAME ".Error.ConfigInvalid"
#define SMCD_BUS_ERROR_OWNED SMCD_BUS_NAME ".Error.OwnedByConfig"
#define SMCD_BUS_ERROR_KERNEL SMCD_BUS_NAME ".Error.Kernel"
#define SMCD_BUS_ERROR_RATE_LIMITED SMCD_BUS_NAME ".Error.RateLimited"
#define SMCD_BUS_ERROR_NOT_SUPPORTED SMCD_BUS_NAME ".Error.NotSupported"
#define SMCD_BUS_ERROR_UNAVAILABLE SMCD_BUS_NAME ".Error.Unavailable"
#define SMCD_BUS_ERROR_NO_MODULE SMCD_BUS_NAME ".Error.NoModule"
#define SMCD_BUS_ERROR_NO_SUCH_WORKLOAD SMCD_BUS_NAME ".Error.NoSuchWorkload"

/*
 * Members, interface by interface: the vtables of smcd-agent/ and the calls of cli/ use these
 * and nothing else (tests/integration/bus-names.test).
 */

/* SMCD_BUS_IFACE_MANAGER */
#define SMCD_BUS_MANAGER_VERSION "Version"				   /* property */
#define SMCD_BUS_MANAGER_STATE "State"					   /* property */
#define SMCD_BUS_MANAGER_CONFIG_PATH "ConfigPath"			   /* property */
#define SMCD_BUS_MANAGER_CONFIG_REVISION "ConfigRevision"		   /* property */
#define SMCD_BUS_MANAGER_CONFIG_LOADED_USEC "ConfigLoadedUSec"		   /* property */
#define SMCD_BUS_MANAGER_CONFIG_ERROR "ConfigError"			   /* property */
#define SMCD_BUS_MANAGER_LAST_RECONCILE "LastReconcile"			   /* property */
#define SMCD_BUS_MANAGER_LAST_CHECK_USEC "LastCheckUSec"		   /* property */
#define SMCD_BUS_MANAGER_DRIFT "Drift"					   /* property */
#define SMCD_BUS_MANAGER_DRIFT_ACTION "DriftAction"			   /* property */
#define SMCD_BUS_MANAGER_DRIFT_INTERVAL_USEC "DriftIntervalUSec"	   /* property */
#define SMCD_BUS_MANAGER_DRIFT_REPAIRS "DriftRepairs"			   /* property */
#define SMCD_BUS_MANAGER_CAPABILITIES "Capabilities"			   /* property */
#define SMCD_BUS_MANAGER_OBJECTS_STALE "ObjectsStale"			   /* property */
#define SMCD_BUS_MANAGER_OBJECTS_READ_USEC "ObjectsReadUSec"		   /* property */
#define SMCD_BUS_MANAGER_RELOAD "Reload"				   /* method */
#define SMCD_BUS_MANAGER_RECONCILE "Reconcile"				   /* method */
#define SMCD_BUS_MANAGER_REFRESH "Refresh"				   /* method */
#define SMCD_BUS_MANAGER_DESCRIBE_CONFIG "DescribeConfig"		   /* method */
#define SMCD_BUS_MANAGER_PLAN_CONFIG "PlanConfig"			   /* method */
#define SMCD_BUS_MANAGER_PLAN_CONFIG_WITH_DROPINS "PlanConfigWithDropIns"  /* method */
#define SMCD_BUS_MANAGER_ADD_UEID "AddUeid"				   /* method */
#define SMCD_BUS_MANAGER_REMOVE_UEID "RemoveUeid"			   /* method */
#define SMCD_BUS_MANAGER_FLUSH_UEID "FlushUeid"				   /* method */
#define SMCD_BUS_MANAGER_SET_SYSCTL "SetSysctl"				   /* method */
#define SMCD_BUS_MANAGER_SET_HANDSHAKE_LIMITATION "SetHandshakeLimitation" /* method */
#define SMCD_BUS_MANAGER_SET_SEID "SetSeid"				   /* method */
#define SMCD_BUS_MANAGER_ADD_PNET "AddPnet"				   /* method */
#define SMCD_BUS_MANAGER_REMOVE_PNET "RemovePnet"			   /* method */
#define SMCD_BUS_MANAGER_FLUSH_PNET "FlushPnet"				   /* method */
#define SMCD_BUS_MANAGER_ENABLE_UNIT "EnableUnit"			   /* method */
#define SMCD_BUS_MANAGER_DISABLE_UNIT "DisableUnit"			   /* method */

/* SMCD_BUS_IFACE_STATS */
#define SMCD_BUS_STATS_AVAILABLE "Available"				     /* property */
#define SMCD_BUS_STATS_TIMESTAMP_USEC "TimestampUSec"			     /* property */
#define SMCD_BUS_STATS_COLLECTION_USEC "CollectionUSec"			     /* property */
#define SMCD_BUS_STATS_INTERVAL_USEC "IntervalUSec"			     /* property */
#define SMCD_BUS_STATS_RESET_USEC "ResetUSec"				     /* property */
#define SMCD_BUS_STATS_KERNEL_EPOCHS "KernelEpochs"			     /* property */
#define SMCD_BUS_STATS_COUNTERS "Counters"				     /* property */
#define SMCD_BUS_STATS_COUNTERS_SINCE_RESET "CountersSinceReset"	     /* property */
#define SMCD_BUS_STATS_RATES "Rates"					     /* property */
#define SMCD_BUS_STATS_FALLBACK_REASONS "FallbackReasons"		     /* property */
#define SMCD_BUS_STATS_GAUGES "Gauges"					     /* property */
#define SMCD_BUS_STATS_PROMETHEUS_PATH "PrometheusPath"			     /* property */
#define SMCD_BUS_STATS_PROMETHEUS_ERROR "PrometheusError"		     /* property */
#define SMCD_BUS_STATS_FALLBACK_ATTRIBUTION "FallbackAttribution"	     /* property */
#define SMCD_BUS_STATS_FALLBACK_ATTRIBUTION_ERROR "FallbackAttributionError" /* property */
#define SMCD_BUS_STATS_FALLBACK_ATTRIBUTED "FallbackAttributed"		     /* signal */
#define SMCD_BUS_STATS_GET_STATISTICS "GetStatistics"			     /* method */
#define SMCD_BUS_STATS_RESET_STATISTICS "ResetStatistics"		     /* method */

/* SMCD_BUS_IFACE_ASSESSMENT */
#define SMCD_BUS_ASSESS_AVAILABLE "Available"		/* property */
#define SMCD_BUS_ASSESS_ERROR "Error"			/* property */
#define SMCD_BUS_ASSESS_INTERVAL_USEC "IntervalUSec"	/* property */
#define SMCD_BUS_ASSESS_WINDOWS "Windows"		/* property */
#define SMCD_BUS_ASSESS_WINDOW_END_USEC "WindowEndUSec" /* property */
#define SMCD_BUS_ASSESS_GET_ASSESSMENT "GetAssessment"	/* method */

/* SMCD_BUS_IFACE_AUTOPILOT (smcd-agent/bus-autopilot.c; documents: common/auto-rules.h) */
#define SMCD_BUS_AUTO_MODE "Mode"		   /* property s: off, observe, on */
#define SMCD_BUS_AUTO_ERROR "Error"		   /* property s: why it cannot act, "" */
#define SMCD_BUS_AUTO_WORKLOADS "Workloads"	   /* property u: followed */
#define SMCD_BUS_AUTO_BUFFER_BYTES "BufferBytes"   /* property t */
#define SMCD_BUS_AUTO_BUDGET_BYTES "BudgetBytes"   /* property t: 0 none */
#define SMCD_BUS_AUTO_DECISIONS "Decisions"	   /* property t: changes of state */
#define SMCD_BUS_AUTO_ROLLBACKS "Rollbacks"	   /* property t */
#define SMCD_BUS_AUTO_GET_WORKLOADS "GetWorkloads" /* method () -> s: JSON */
#define SMCD_BUS_AUTO_EXPLAIN "Explain"		   /* method (s) -> s: JSON */
#define SMCD_BUS_AUTO_FREEZE "Freeze"		   /* method (sb) */
#define SMCD_BUS_AUTO_FORGET "Forget"		   /* method (s) */
#define SMCD_BUS_AUTO_DECISION "Decision" /* signal (ssssb): workload, from, to, why, rollback */

/* SMCD_BUS_IFACE_POLICY */
#define SMCD_BUS_POLICY_POLICIES "Policies"	       /* property */
#define SMCD_BUS_POLICY_HOOKS "Hooks"		       /* property */
#define SMCD_BUS_POLICY_SOURCES "Sources"	       /* property */
#define SMCD_BUS_POLICY_ENROLL_PROCESS "EnrollProcess" /* method */

/* SMCD_BUS_IFACE_LOOPBACK */
#define SMCD_BUS_LOOPBACK_ACTIVATE "Activate"	  /* method */
#define SMCD_BUS_LOOPBACK_DEACTIVATE "Deactivate" /* method */
#define SMCD_BUS_LOOPBACK_SET "Set"		  /* method */

/* SMCD_BUS_IFACE_DEVICE */
#define SMCD_BUS_DEVICE_NAME "Name"				 /* property */
#define SMCD_BUS_DEVICE_TECHNOLOGY "Technology"			 /* property */
#define SMCD_BUS_DEVICE_LOOPBACK "Loopback"			 /* property */
#define SMCD_BUS_DEVICE_FABRIC_ID "FabricId"			 /* property */
#define SMCD_BUS_DEVICE_GID "Gid"				 /* property */
#define SMCD_BUS_DEVICE_PCI_ID "PciId"				 /* property */
#define SMCD_BUS_DEVICE_PNET_ID "PnetId"			 /* property */
#define SMCD_BUS_DEVICE_PNET_ID_USER_DEFINED "PnetIdUserDefined" /* property */
#define SMCD_BUS_DEVICE_LINK_GROUPS "LinkGroups"		 /* property */
#define SMCD_BUS_DEVICE_CONNECTIONS "Connections"		 /* property */
#define SMCD_BUS_DEVICE_LINK_GROUPS_SEEN "LinkGroupsSeen"	 /* property */
#define SMCD_BUS_DEVICE_PORTS "Ports"				 /* property */

/* SMCD_BUS_IFACE_LOOPBACK_DEVICE */
#define SMCD_BUS_LOOPBACK_DEVICE_NAME "Name"				   /* property */
#define SMCD_BUS_LOOPBACK_DEVICE_STATE "State"				   /* property */
#define SMCD_BUS_LOOPBACK_DEVICE_REMOVING "Removing"			   /* property */
#define SMCD_BUS_LOOPBACK_DEVICE_GENERATION "Generation"		   /* property */
#define SMCD_BUS_LOOPBACK_DEVICE_GID "Gid"				   /* property */
#define SMCD_BUS_LOOPBACK_DEVICE_PENDING "Pending"			   /* property */
#define SMCD_BUS_LOOPBACK_DEVICE_DMB_TYPE "DmbType"			   /* property */
#define SMCD_BUS_LOOPBACK_DEVICE_NOCOPY "Nocopy"			   /* property */
#define SMCD_BUS_LOOPBACK_DEVICE_MAX_DMBS "MaxDmbs"			   /* property */
#define SMCD_BUS_LOOPBACK_DEVICE_ACTIVE_DMB_TYPE "ActiveDmbType"	   /* property */
#define SMCD_BUS_LOOPBACK_DEVICE_ACTIVE_NOCOPY "ActiveNocopy"		   /* property */
#define SMCD_BUS_LOOPBACK_DEVICE_ACTIVE_MAX_DMBS "ActiveMaxDmbs"	   /* property */
#define SMCD_BUS_LOOPBACK_DEVICE_DRAIN_TIMEOUT_USEC "DrainTimeoutUSec"	   /* property */
#define SMCD_BUS_LOOPBACK_DEVICE_DRAIN_REMAINING_USEC "DrainRemainingUSec" /* property */
/*
 * And one property per counter of smc_lo, a row of SMCLO_COUNTERS (netlink/smclo.h): named
 * by the row's Bus column, the counter's key in CamelCase (dmb_bytes: DmbBytes), of type
 * "u" or "t" by its width.  common/bus-api-sh reads the rows too, so that the shell and
 * bus-names.test know these names as SMCD_BUS_LOOPBACK_DEVICE_<ATTR>.
 */
#define SMCD_BUS_LOOPBACK_DEVICE_COUNTER(bus) #bus

/* SMCD_BUS_IFACE_LINKGROUP */
#define SMCD_BUS_LINKGROUP_ID "Id"			      /* property */
#define SMCD_BUS_LINKGROUP_TECHNOLOGY "Technology"	      /* property */
#define SMCD_BUS_LINKGROUP_CONNECTIONS "Connections"	      /* property */
#define SMCD_BUS_LINKGROUP_PNET_ID "PnetId"		      /* property */
#define SMCD_BUS_LINKGROUP_VLAN_ID "VlanId"		      /* property */
#define SMCD_BUS_LINKGROUP_DEVICE "Device"		      /* property */
#define SMCD_BUS_LINKGROUP_ROLE "Role"			      /* property */
#define SMCD_BUS_LINKGROUP_TYPE "Type"			      /* property */
#define SMCD_BUS_LINKGROUP_VERSION "Version"		      /* property */
#define SMCD_BUS_LINKGROUP_PEER_HOST "PeerHost"		      /* property */
#define SMCD_BUS_LINKGROUP_NEGOTIATED_EID "NegotiatedEid"     /* property */
#define SMCD_BUS_LINKGROUP_PEER_OS "PeerOs"		      /* property */
#define SMCD_BUS_LINKGROUP_GID "Gid"			      /* property */
#define SMCD_BUS_LINKGROUP_PEER_GID "PeerGid"		      /* property */
#define SMCD_BUS_LINKGROUP_SNDBUF_ALLOC "SndbufAlloc"	      /* property */
#define SMCD_BUS_LINKGROUP_BUFFER_ALLOC "BufferAlloc"	      /* property */
#define SMCD_BUS_LINKGROUP_FIRST_SEEN_USEC "FirstSeenUSec"    /* property */
#define SMCD_BUS_LINKGROUP_PEAK_CONNECTIONS "PeakConnections" /* property */
#define SMCD_BUS_LINKGROUP_LINKS "Links"		      /* property */
