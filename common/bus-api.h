/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The D-Bus contract of smcd-agent, in one place: its name, object paths, interfaces and
 * errors, used by the agent (smcd-agent/bus-*.c, objects.c, loopback-device.c) and by
 * smcctl (cli/).  What each member does is in smcd-agent(8); the bus policy is
 * etc/dbus-1/org.smcd.Agent1.conf.
 * A name changed here changes both sides; tests/integration/man-coverage.test checks that
 * every interface, property and error named here is in smcd-agent(8).
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
/* Interfaces of the device and link-group objects. */
#define SMCD_BUS_IFACE_DEVICE SMCD_BUS_NAME ".Device"
#define SMCD_BUS_IFACE_LOOPBACK_DEVICE SMCD_BUS_NAME ".LoopbackDevice"
#define SMCD_BUS_IFACE_LINKGROUP SMCD_BUS_NAME ".LinkGroup"

/* Properties of SMCD_BUS_IFACE_MANAGER: whether the devices and link groups are those of a
 * failed read (kept from the last good one), and when the last good read was. */
#define SMCD_BUS_PROP_OBJECTS_STALE "ObjectsStale"
#define SMCD_BUS_PROP_OBJECTS_READ_USEC "ObjectsReadUSec"

/* Errors (besides org.freedesktop.DBus.Error.AccessDenied, InvalidArgs, Failed). */
#define SMCD_BUS_ERROR_CONFIG_INVALID SMCD_BUS_NAME ".Error.ConfigInvalid"
#define SMCD_BUS_ERROR_OWNED SMCD_BUS_NAME ".Error.OwnedByConfig"
#define SMCD_BUS_ERROR_KERNEL SMCD_BUS_NAME ".Error.Kernel"
#define SMCD_BUS_ERROR_RATE_LIMITED SMCD_BUS_NAME ".Error.RateLimited"
#define SMCD_BUS_ERROR_NOT_SUPPORTED SMCD_BUS_NAME ".Error.NotSupported"
#define SMCD_BUS_ERROR_UNAVAILABLE SMCD_BUS_NAME ".Error.Unavailable"
#define SMCD_BUS_ERROR_NO_MODULE SMCD_BUS_NAME ".Error.NoModule"
